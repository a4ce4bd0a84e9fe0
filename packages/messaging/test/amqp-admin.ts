import { connect, type Channel, type ChannelModel } from 'amqplib';

/** A raw AMQP connection for tests: publishing bytes the bus would not, and cleaning up. */
export class AmqpAdmin {
  private constructor(
    readonly model: ChannelModel,
    readonly channel: Channel,
  ) {}

  static async open(url: string): Promise<AmqpAdmin> {
    const model = await connect(url, { noDelay: true });
    model.on('error', () => undefined);
    const channel = await model.createChannel();
    channel.on('error', () => undefined);
    return new AmqpAdmin(model, channel);
  }

  /** Messages ready in a queue (not counting those delivered and unacked). */
  async messageCount(queue: string): Promise<number> {
    return (await this.channel.checkQueue(queue)).messageCount;
  }

  /** Deletes consumer queues with their dead-letter queues, then the exchanges. */
  async deleteTopology(queues: string[], exchanges: string[]): Promise<void> {
    for (const queue of queues) {
      await this.channel.deleteQueue(queue);
      await this.channel.deleteQueue(`${queue}.dlq`);
    }
    for (const exchange of exchanges) await this.channel.deleteExchange(exchange);
  }

  async close(): Promise<void> {
    await this.model.close().catch(() => undefined);
  }
}
