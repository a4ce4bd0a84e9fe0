import {
  ECHO_ROUTES,
  linkToken,
  startEchoService,
  startHarness,
  type Harness,
  type SessionHeaders,
} from '../fixtures/gateway-harness';

// Members of a tenant (issue #32, "Platform members"; docs/adr/0034): an owner invites people by
// e-mail with a role; the gateway enforces each role on every call their sessions make.

let h: Harness;
let echo: Awaited<ReturnType<typeof startEchoService>>;
let owner: { headers: SessionHeaders; platformId: string; email: string };
beforeAll(async () => {
  echo = await startEchoService();
  h = await startHarness({ routes: ECHO_ROUTES, serviceUrls: { REGISTRY_URL: echo.url } });
  owner = await h.session('platform');
});
afterAll(async () => {
  await h.stop();
  await echo.service.stop();
});

const PASSWORD = 'a long enough passphrase';

const as = (headers: SessionHeaders | undefined) => ({
  get: (path: string) => h.call(undefined, 'GET', path, undefined, headers ?? {}),
  post: (path: string, body?: unknown) => h.call(undefined, 'POST', path, body, headers ?? {}),
  patch: (path: string, body?: unknown) => h.call(undefined, 'PATCH', path, body, headers ?? {}),
  delete: (path: string) => h.call(undefined, 'DELETE', path, undefined, headers ?? {}),
});

/** Invites `email` as `role` and follows the mailed link: the new member's session headers. */
async function join(email: string, role: string, name = `Member ${role}`) {
  const invited = await as(owner.headers).post('/dashboard/api/members/invitations', { email, role });
  expect(invited.status).toBe(201);
  const mail = await h.mail.waitFor((m) => m.to.includes(email) && m.subject.startsWith('You are invited'));
  const accepted = await as(undefined).post('/dashboard/api/invitations/accept', {
    token: linkToken(mail),
    name,
    password: PASSWORD,
  });
  expect(accepted.status).toBe(200);
  const token = /svc_session=([^;]+)/.exec(accepted.headers.get('set-cookie') ?? '')?.[1] ?? '';
  return {
    headers: { cookie: `svc_session=${token}`, 'x-csrf-token': accepted.body.data.csrfToken as string },
    session: accepted.body.data,
    mail,
  };
}

describe('members of a tenant', () => {
  it('when an owner invites an address, then a link is mailed and following it joins the tenant with that role, signed in, once', async () => {
    const email = `dev${Math.random().toString(36).slice(2)}@example.com`;
    const invited = await as(owner.headers).post('/dashboard/api/members/invitations', {
      email,
      role: 'developer',
    });
    expect(invited.status).toBe(201);
    expect(invited.body.data).toMatchObject({ email, role: 'developer', invitedBy: 'A platform' });
    const mail = await h.mail.waitFor((m) => m.to.includes(email));
    expect(mail.subject).toBe('You are invited to join A platform');
    expect(mail.text).toContain('as a developer');
    expect(mail.links[0]).toContain('/dashboard/accept-invitation#token=');

    const listed = await as(owner.headers).get('/dashboard/api/members');
    expect(listed.body.data.invitations.map((i: { email: string }) => i.email)).toContain(email);

    // A weak password is refused on its field, and the link stays usable.
    h.clock.advance(60_000);
    const weak = await as(undefined).post('/dashboard/api/invitations/accept', {
      token: linkToken(mail),
      name: 'Dev',
      password: 'password1234',
    });
    expect(weak.status).toBe(400);
    expect(weak.body.error.details.fields[0].field).toBe('password');
    const accepted = await as(undefined).post('/dashboard/api/invitations/accept', {
      token: linkToken(mail),
      name: 'Dev',
      password: PASSWORD,
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.account).toMatchObject({
      email,
      name: 'Dev',
      role: 'platform',
      platformId: owner.platformId,
      memberRole: 'developer',
    });
    const again = await as(undefined).post('/dashboard/api/invitations/accept', {
      token: linkToken(mail),
      name: 'Dev',
      password: PASSWORD,
    });
    expect(again.status).toBe(400);
    expect(again.body.error.details.fields[0].field).toBe('token');

    const members = (await as(owner.headers).get('/dashboard/api/members')).body.data;
    expect(
      members.members.map((m: { email: string; role: string; you: boolean }) => [m.email, m.role, m.you]),
    ).toEqual([
      [owner.email, 'owner', true],
      [email, 'developer', false],
    ]);
    expect(members.invitations.map((i: { email: string }) => i.email)).not.toContain(email);
  });

  it('when a read-only member calls, then reads answer and every change is refused with 403 naming the role; their own password still changes', async () => {
    const email = `ro${Math.random().toString(36).slice(2)}@example.com`;
    const { headers, session } = await join(email, 'read_only');
    expect(session.account.memberRole).toBe('read_only');
    const reader = as(headers);
    expect((await reader.get('/v1/svc/echo/1')).status).toBe(200);
    expect((await reader.get('/dashboard/api/keys')).status).toBe(200);
    expect((await reader.get('/dashboard/api/members')).status).toBe(200);
    const write = await reader.post('/v1/svc/things', { a: 1 });
    expect(write.status).toBe(403);
    expect(write.body.error.message).toBe('Your role (read-only member) cannot call things');
    const batch = await reader.post('/dashboard/api/batch', { requests: [{ path: '/v1/svc/echo/2' }] });
    expect(batch.body.data.responses[0].status).toBe(200);
    for (const refused of [
      await reader.post('/dashboard/api/keys', { name: 'Nope' }),
      await reader.post('/dashboard/api/members/invitations', { email: 'x@example.com', role: 'owner' }),
    ]) {
      expect(refused.status).toBe(403);
      expect(refused.body.error.details.memberRole).toBe('read_only');
    }
    const changed = await reader.post('/dashboard/api/account/password', {
      currentPassword: PASSWORD,
      newPassword: 'another long passphrase',
    });
    expect(changed.status).toBe(200);
  });

  it('when a developer calls, then it changes what the API allows but not the members', async () => {
    const { headers } = await join(`dev2${Math.random().toString(36).slice(2)}@example.com`, 'developer');
    const developer = as(headers);
    expect((await developer.post('/v1/svc/things', { a: 1 })).status).toBe(201);
    expect((await developer.post('/dashboard/api/keys', { name: 'Dev key' })).status).toBe(201);
    const refused = await developer.post('/dashboard/api/members/invitations', {
      email: 'y@example.com',
      role: 'developer',
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe('Your role (developer) cannot invite members');
  });

  it('when an owner changes roles and removes members, then the change applies from the next call, the tenant keeps an owner, and a removed member is signed out', async () => {
    const email = `mover${Math.random().toString(36).slice(2)}@example.com`;
    const { headers, session } = await join(email, 'read_only');
    const id = session.account.id as string;
    expect((await as(headers).post('/v1/svc/things', {})).status).toBe(403);
    const promoted = await as(owner.headers).patch(`/dashboard/api/members/${id}`, { role: 'owner' });
    expect(promoted.status).toBe(200);
    expect(promoted.body.data).toMatchObject({ accountId: id, role: 'owner', you: false });
    // The running session carries the new role at once.
    expect((await as(headers).post('/v1/svc/things', {})).status).toBe(201);

    // Two owners: the first may step down; then the last owner may not, nor leave.
    const ownerId = (await as(owner.headers).get('/dashboard/api/session')).body.data.account.id;
    expect((await as(headers).patch(`/dashboard/api/members/${ownerId}`, { role: 'developer' })).status).toBe(
      200,
    );
    const last = await as(headers).patch(`/dashboard/api/members/${id}`, { role: 'read_only' });
    expect(last.status).toBe(409);
    expect(last.body.error.message).toBe('Your account must keep an owner');
    expect((await as(headers).delete(`/dashboard/api/members/${id}`)).status).toBe(409);
    // Restore: the first owner is an owner again.
    expect((await as(headers).patch(`/dashboard/api/members/${ownerId}`, { role: 'owner' })).status).toBe(
      200,
    );

    const removed = await as(owner.headers).delete(`/dashboard/api/members/${id}`);
    expect(removed.status).toBe(200);
    expect((await as(headers).get('/dashboard/api/session')).status).toBe(401);
    const members = (await as(owner.headers).get('/dashboard/api/members')).body.data.members;
    expect(members.map((m: { accountId: string }) => m.accountId)).not.toContain(id);
    // Another tenant's member is not one of ours.
    const stranger = await h.session('platform');
    const strangerId = (await as(stranger.headers).get('/dashboard/api/session')).body.data.account.id;
    expect((await as(owner.headers).delete(`/dashboard/api/members/${strangerId}`)).status).toBe(404);
    expect((await as(stranger.headers).get('/dashboard/api/session')).status).toBe(200);
  });

  it('when an invitation is withdrawn, renewed, or names an address with an account, then only the newest link works and the taken address is refused', async () => {
    const email = `twice${Math.random().toString(36).slice(2)}@example.com`;
    const first = await as(owner.headers).post('/dashboard/api/members/invitations', {
      email,
      role: 'developer',
    });
    const firstMail = await h.mail.waitFor((m) => m.to.includes(email));
    const second = await as(owner.headers).post('/dashboard/api/members/invitations', {
      email,
      role: 'read_only',
    });
    await h.mail.waitFor((m) => m.to.includes(email) && h.mail.inbox(email).length === 2);
    const secondMail = h.mail.inbox(email).at(-1)!;
    const open = (await as(owner.headers).get('/dashboard/api/members')).body.data.invitations.filter(
      (i: { email: string }) => i.email === email,
    );
    expect(open.map((i: { id: string; role: string }) => [i.id, i.role])).toEqual([
      [second.body.data.id, 'read_only'],
    ]);
    const stale = await as(undefined).post('/dashboard/api/invitations/accept', {
      token: linkToken(firstMail),
      name: 'Late',
      password: PASSWORD,
    });
    expect(stale.status).toBe(400);
    expect(first.body.data.id).not.toBe(second.body.data.id);

    expect(
      (await as(owner.headers).delete(`/dashboard/api/members/invitations/${second.body.data.id}`)).status,
    ).toBe(200);
    const withdrawn = await as(undefined).post('/dashboard/api/invitations/accept', {
      token: linkToken(secondMail),
      name: 'Late',
      password: PASSWORD,
    });
    expect(withdrawn.status).toBe(400);
    expect(
      (await as(owner.headers).delete(`/dashboard/api/members/invitations/${second.body.data.id}`)).status,
    ).toBe(404);

    const taken = await as(owner.headers).post('/dashboard/api/members/invitations', {
      email: owner.email,
      role: 'developer',
    });
    expect(taken.status).toBe(409);
    expect(taken.body.error.details.fields[0].field).toBe('email');
    expect((await as(owner.headers).delete('/dashboard/api/members/%00')).status).toBe(400);
    expect((await as(owner.headers).delete('/dashboard/api/members/invitations/%00')).status).toBe(400);
    const bad = await as(owner.headers).post('/dashboard/api/members/invitations', {
      email: 'nope',
      role: 'boss',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual([
      'email',
      'role',
    ]);
  });
});
