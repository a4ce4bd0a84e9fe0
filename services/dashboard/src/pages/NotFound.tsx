import { Link } from 'react-router';

/** What an unknown page, or a resource of another account, shows. */
export function NotFound({ what }: { what?: string }) {
  return (
    <section aria-labelledby="not-found-title">
      <h1 id="not-found-title">Not found</h1>
      <p>
        {what === undefined ? 'There is no such page.' : `There is no ${what} with this id in your account.`}
      </p>
      <p>
        <Link to="/">Back to the overview</Link>
      </p>
    </section>
  );
}
