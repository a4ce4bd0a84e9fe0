import { z } from 'zod';

// Read-through on a projection miss (ADR 0010): a service that has not yet heard of an entity
// another service just created asks the owner for it. The owner answers with the entity as its
// events describe it and the version of its latest event, so the asker can store the answer in
// its projection and the events still on their way apply (or not) as usual. Internal only: these
// paths are not public operations and answer only a service's internal token. Each owner declares
// its path and snapshot in its own contract (registry/snapshots.ts, licensing/snapshots.ts).

/** An entity as its owner holds it now, with the entity version of its latest event. */
export function snapshotOf<S extends z.ZodType>(data: S) {
  return z.object({ data: z.object({ version: z.number().int().min(0), entity: data }) });
}

/** The concrete path of an internal snapshot route (`…/:id`) for one id. */
export function snapshotPath(route: `${string}/:id`, id: string): string {
  return route.replace(':id', encodeURIComponent(id));
}
