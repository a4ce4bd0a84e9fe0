// Built by vite.config.ts's webhookEvents plugin from the OpenAPI document's `webhooks`.
declare module 'virtual:webhook-events' {
  /** Every event a webhook endpoint can receive: its name, summary, description and an example body. */
  const events: { type: string; summary: string; description: string; example: unknown }[];
  export default events;
}
