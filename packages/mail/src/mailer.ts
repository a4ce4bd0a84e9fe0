/** One plain-text message; links stay whole in plain text, and every mail client shows it. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** The mail port: hands a message to a mail server, or throws (the caller retries). */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}
