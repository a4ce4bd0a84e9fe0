import type { Browser, Page } from 'playwright-core';
import { seriousViolations } from './accessibility';
import {
  launchBrowser,
  newVisitor,
  PASSWORD,
  screenshot,
  signUp,
  startDeployment,
  uniqueEmail,
  type Deployment,
} from './browser';

jest.setTimeout(300_000);

// Issue #32, "Platform members": an owner invites people by e-mail with a role (owner, developer,
// read-only); each follows the mailed link, chooses a name and a password and is signed in; the
// gateway enforces each role, and the dashboard offers each only the controls it may use.

describe('dashboard: a platform owner manages its members in a real browser', () => {
  let deployment: Deployment;
  let browser: Browser;

  beforeAll(async () => {
    deployment = await startDeployment();
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await deployment?.stop();
  });

  /** The accept-invitation link mailed to `email`. */
  async function invitationLink(email: string): Promise<string> {
    const message = await deployment.mail.waitFor(
      (mail) => mail.to.includes(email) && mail.subject.startsWith('You are invited'),
      30_000,
    );
    const link = message.links.find((found) => found.includes('/accept-invitation'));
    if (link === undefined) throw new Error(`no invitation link in the mail to ${email}`);
    return link;
  }

  /** A state-changing call from the page's own session, with its CSRF token, as a script would make it. */
  function postFrom(
    page: Page,
    path: string,
    body: unknown,
  ): Promise<{ status: number; code: string | null }> {
    return page.evaluate(
      async ({ path, body }) => {
        const session = (await (await fetch('/dashboard/api/session')).json()) as {
          data: { csrfToken: string };
        };
        const res = await fetch(path, {
          method: 'POST',
          headers: { 'x-csrf-token': session.data.csrfToken, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const answer = res.ok ? null : ((await res.json()) as { error?: { code?: string } });
        return { status: res.status, code: answer?.error?.code ?? null };
      },
      { path, body },
    );
  }

  /** A row naming this address. */
  const byEmail = (email: string) => new RegExp(email.replace(/[.]/g, '\\.'));

  /** The session's member role, as the gateway has it now. */
  const memberRoleOf = (page: Page) =>
    page.evaluate(async () => {
      const res = await fetch('/dashboard/api/session');
      return ((await res.json()) as { data: { account: { memberRole: string | null } } }).data.account
        .memberRole;
    });

  /** Follows an invitation link in a fresh browser profile and joins with `name`. */
  async function join(link: string, name: string, options: { checkPage?: boolean } = {}): Promise<Page> {
    const context = await newVisitor(browser);
    const page = await context.newPage();
    await page.goto(link);
    await page.getByRole('heading', { name: 'Accept the invitation', level: 1 }).waitFor();
    if (options.checkPage === true) {
      // A weak password is refused on its field; the link still works afterwards.
      await page.getByLabel('Your name').fill(name);
      await page.getByLabel('Password').fill('password');
      await page.getByRole('button', { name: 'Join' }).click();
      await page
        .locator('.field', { has: page.getByLabel('Password') })
        .getByRole('alert')
        .waitFor();
      await screenshot(page, 'members-accept-invitation');
    }
    await page.getByLabel('Your name').fill(name);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Join' }).click();
    await page.getByRole('heading', { name: `Welcome, ${name}` }).waitFor();
    return page;
  }

  it('when an owner invites a developer and a read-only member, then each joins from the mailed link, the gateway holds each to its role, the owner changes one and removes the other, and the last owner cannot step down', async () => {
    const owner = await newVisitor(browser);
    const page = await owner.newPage();
    const calls: string[] = [];
    page.on('request', (request) => {
      const { pathname } = new URL(request.url());
      if (/^\/(dashboard\/api|v1\/svc|identity|licensing|revenue|enforcement)\//.test(pathname)) {
        calls.push(`${request.method()} ${pathname}`);
      }
    });
    const ownerEmail = uniqueEmail('owner');
    await signUp(page, deployment, { email: ownerEmail, name: 'Crew Inc', role: 'platform' });

    // The page loads with at most 3 API calls (issue #32, "Budgets").
    calls.length = 0;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Members' }).click();
    await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
    const ownRow = page.getByRole('row', { name: /Crew Inc \(you\)/ });
    await ownRow.getByText('(you)').waitFor();
    await page.waitForTimeout(1500);
    expect(calls.length).toBeLessThanOrEqual(3);
    expect(await ownRow.getByRole('combobox', { name: 'Role of Crew Inc' }).inputValue()).toBe('owner');
    await page.getByText('No pending invitations.').waitFor();

    // An address that has an account already is refused on the E-mail field.
    const invite = page.getByRole('form', { name: 'Invite a member' });
    await invite.getByLabel('E-mail').fill(ownerEmail);
    await invite.getByRole('button', { name: 'Invite' }).click();
    await invite
      .locator('.field', { has: page.getByLabel('E-mail') })
      .getByRole('alert')
      .filter({ hasText: 'already has an account' })
      .waitFor();

    const developerEmail = uniqueEmail('developer');
    const readerEmail = uniqueEmail('reader');
    await invite.getByLabel('E-mail').fill(developerEmail);
    await invite.getByLabel('Role').selectOption({ label: 'Developer' });
    await invite.getByText('Everything but members').waitFor();
    await invite.getByRole('button', { name: 'Invite' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Invitation sent to ${developerEmail}` })
      .waitFor();
    await invite.getByLabel('E-mail').fill(readerEmail);
    await invite.getByLabel('Role').selectOption({ label: 'Read-only' });
    await invite.getByRole('button', { name: 'Invite' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Invitation sent to ${readerEmail}` })
      .waitFor();
    const readerInvitation = page.getByRole('row', { name: byEmail(readerEmail) });
    await readerInvitation.getByRole('cell', { name: 'Read-only', exact: true }).waitFor();
    await readerInvitation.getByRole('cell', { name: /Crew Inc/ }).waitFor();
    await page
      .getByRole('row', { name: byEmail(developerEmail) })
      .getByRole('cell', { name: 'Developer', exact: true })
      .waitFor();
    await screenshot(page, 'members-invited');

    // A withdrawn invitation's link no longer works.
    const withdrawnEmail = uniqueEmail('withdrawn');
    await invite.getByLabel('E-mail').fill(withdrawnEmail);
    await invite.getByRole('button', { name: 'Invite' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Invitation sent to ${withdrawnEmail}` })
      .waitFor();
    await page.getByRole('button', { name: `Withdraw the invitation to ${withdrawnEmail}` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /is withdrawn/ })
      .waitFor();
    await page.getByRole('row', { name: byEmail(withdrawnEmail) }).waitFor({ state: 'detached' });
    const stranger = await newVisitor(browser);
    const strangerPage = await stranger.newPage();
    await strangerPage.goto(await invitationLink(withdrawnEmail));
    await strangerPage.getByLabel('Your name').fill('Too Late');
    await strangerPage.getByLabel('Password').fill(PASSWORD);
    await strangerPage.getByRole('button', { name: 'Join' }).click();
    await strangerPage.getByRole('heading', { name: 'This invitation does not work' }).waitFor();
    expect(await seriousViolations(strangerPage)).toEqual([]);
    await stranger.close();

    // The read-only member joins: Members without the controls, and no key to issue.
    const reader = await join(await invitationLink(readerEmail), 'Reed Only', { checkPage: true });
    expect(await memberRoleOf(reader)).toBe('read_only');
    await reader.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Members' }).click();
    await reader.getByText('Only owners invite, change and remove members.').waitFor();
    await reader
      .getByRole('row', { name: /Reed Only/ })
      .getByText('(you)')
      .waitFor();
    expect(await reader.getByRole('form', { name: 'Invite a member' }).count()).toBe(0);
    expect(await reader.getByRole('combobox').count()).toBe(0);
    expect(await reader.getByRole('button', { name: /^Remove / }).count()).toBe(0);
    await reader.getByRole('button', { name: 'Leave' }).waitFor();
    await screenshot(reader, 'members-read-only');
    await reader.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
    await reader.getByText('Your role (read-only) cannot change this').waitFor();
    expect(await reader.getByRole('button', { name: 'Create a key' }).count()).toBe(0);
    expect(await postFrom(reader, '/dashboard/api/keys', {})).toEqual({ status: 403, code: 'FORBIDDEN' });
    await reader.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    await reader.getByText('Your role (read-only) cannot change this').waitFor();
    expect(await reader.getByRole('button', { name: 'Add endpoint' }).count()).toBe(0);

    // The developer joins: issues a key from the Keys page, but may not invite.
    const developer = await join(await invitationLink(developerEmail), 'Dev Eloper');
    expect(await memberRoleOf(developer)).toBe('developer');
    await developer.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
    await developer.getByLabel('Name (optional)').fill('Dev key');
    await developer.getByRole('button', { name: 'Create a key' }).click();
    expect(await developer.getByLabel('Secret', { exact: true }).textContent()).toMatch(/^svc_test_/);
    await developer.getByRole('button', { name: 'I have stored it' }).click();
    expect(
      await postFrom(developer, '/dashboard/api/members/invitations', {
        email: uniqueEmail('sneaky'),
        role: 'owner',
      }),
    ).toEqual({ status: 403, code: 'FORBIDDEN' });
    await developer.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Members' }).click();
    await developer.getByText('Only owners invite, change and remove members.').waitFor();
    expect(await developer.getByRole('form', { name: 'Invite a member' }).count()).toBe(0);

    // The owner sees both members, makes the read-only one a developer and removes the other.
    await page.reload();
    await page.getByRole('row', { name: /Reed Only/ }).waitFor();
    await page.getByRole('row', { name: /Dev Eloper/ }).waitFor();
    await page.getByText('No pending invitations.').waitFor();
    await page.getByRole('combobox', { name: 'Role of Reed Only' }).selectOption({ label: 'Developer' });
    await page.getByRole('button', { name: 'Change the role of Reed Only' }).click();
    await page.getByRole('status').filter({ hasText: 'Reed Only is now Developer.' }).waitFor();
    expect(await memberRoleOf(reader)).toBe('developer');

    await page.getByRole('button', { name: 'Remove Dev Eloper' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove Dev Eloper?' });
    await dialog.getByText(developerEmail).waitFor();
    await screenshot(page, 'members-confirm-remove');
    await dialog.getByRole('button', { name: 'Remove member' }).click();
    await page.getByRole('status').filter({ hasText: 'Dev Eloper is removed.' }).waitFor();
    await page.getByRole('row', { name: /Dev Eloper/ }).waitFor({ state: 'detached' });

    // The removed member's next page load is signed out.
    await developer.reload();
    await developer.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    expect(new URL(developer.url()).pathname).toBe('/dashboard/sign-in');

    // The last owner cannot step down, nor leave: the API's message shows.
    await page.getByRole('combobox', { name: 'Role of Crew Inc' }).selectOption({ label: 'Developer' });
    await page.getByRole('button', { name: 'Change the role of Crew Inc' }).click();
    await page.getByRole('alert').filter({ hasText: 'Your account must keep an owner' }).waitFor();
    expect(await memberRoleOf(page)).toBe('owner');
    await screenshot(page, 'members-last-owner');
    await page.getByRole('button', { name: 'Leave' }).click();
    await page
      .getByRole('dialog', { name: 'Leave and delete your account?' })
      .getByRole('button', { name: 'Leave' })
      .click();
    await page.getByRole('alert').filter({ hasText: 'Your account must keep an owner' }).waitFor();
    expect(await memberRoleOf(page)).toBe('owner');

    // A member who is not the last owner leaves: signed out, and gone from the list.
    await reader.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Members' }).click();
    await reader.getByRole('button', { name: 'Leave' }).click();
    await reader
      .getByRole('dialog', { name: 'Leave and delete your account?' })
      .getByRole('button', { name: 'Leave' })
      .click();
    await reader.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    await page.reload();
    await page.getByRole('row', { name: /Crew Inc \(you\)/ }).waitFor();
    expect(await page.getByRole('row', { name: /Reed Only/ }).count()).toBe(0);

    await reader.context().close();
    await developer.context().close();
    await owner.close();
  });
});
