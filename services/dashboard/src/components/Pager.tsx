/** Previous / next over a list the API pages (`limit`, `offset`, `meta.total`). */
export function Pager({
  offset,
  limit,
  total,
  onChange,
  label,
}: {
  offset: number;
  limit: number;
  total: number;
  onChange: (offset: number) => void;
  label: string;
}) {
  if (total <= limit && offset === 0) return null;
  const last = Math.min(offset + limit, total);
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button
        type="button"
        className="secondary"
        disabled={offset === 0}
        onClick={() => onChange(Math.max(0, offset - limit))}
      >
        Previous
      </button>
      <span aria-live="polite">
        {offset + 1}–{last} of {total}
      </span>
      <button
        type="button"
        className="secondary"
        disabled={last >= total}
        onClick={() => onChange(offset + limit)}
      >
        Next
      </button>
    </nav>
  );
}

/** The page size of every list of the dashboard. */
export const PAGE_SIZE = 10;
