import { Controller, Inject, Injectable } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { lte } from 'drizzle-orm';
import { parseRequest } from '@world/contracts';
import { DATABASE, type DatabaseHandle } from '@world/runtime';
import { workbenchTickets } from '../db/schema.js';

/**
 * The only code touching `broker.workbench_tickets`: the nonces of the workbench login tickets
 * already exchanged, each until its ticket expires (README "The workbench"), so a ticket is
 * one-time across every gateway replica, not only per replica.
 */
@Injectable()
export class WorkbenchTickets {
  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  /**
   * Records `nonce` exchanged; true for the one call that recorded it first (the primary key
   * decides between racing replicas). Drops nonces whose tickets have expired.
   * @param expiresAt epoch ms when the ticket expires (kept until then)
   * @param now epoch ms
   */
  async consume(nonce: string, expiresAt: number, now: number): Promise<boolean> {
    await this.database.db.delete(workbenchTickets).where(lte(workbenchTickets.expiresAt, now));
    const inserted = await this.database.db
      .insert(workbenchTickets)
      .values({ nonce, expiresAt })
      .onConflictDoNothing()
      .returning({ nonce: workbenchTickets.nonce });
    return inserted.length === 1;
  }
}

/** `broker.workbench.ticket.consume`. */
@Controller()
export class WorkbenchTicketsController {
  constructor(private readonly tickets: WorkbenchTickets) {}

  @MessagePattern('broker.workbench.ticket.consume')
  async consume(@Payload() data: unknown): Promise<{ consumed: boolean }> {
    const { nonce, expiresAt } = parseRequest('broker.workbench.ticket.consume', data);
    return { consumed: await this.tickets.consume(nonce, expiresAt, Date.now()) };
  }
}
