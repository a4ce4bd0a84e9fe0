import type { ListedPlatform } from '../../api/operator';

/** The tenants a page named, by id (useTenantNames); undefined while they load. */
export type Tenants = Map<string, ListedPlatform> | undefined;

/** A tenant by its name and kind, its id beside it for support; the id alone until names load. */
export function Tenant({ id, tenants }: { id: string; tenants: Tenants }) {
  const tenant = tenants?.get(id);
  return tenant === undefined ? (
    <code>{id}</code>
  ) : (
    <>
      {tenant.name} ({tenant.kind}) <code className="muted">{id}</code>
    </>
  );
}
