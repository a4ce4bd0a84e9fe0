import { useEffect, useRef } from 'react';
import type { ShownSecret } from '../api/platform';

/** A secret shown once: focused and announced, with what to do with it. */
export function SecretOnce({ shown, onDone }: { shown: ShownSecret; onDone: () => void }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => box.current?.focus(), [shown.secret]);
  return (
    <div className="card" role="region" aria-labelledby="secret-title" tabIndex={-1} ref={box}>
      <h2 id="secret-title">{shown.label}</h2>
      <p>Copy it now: it is shown once and cannot be read again.</p>
      <p className="secret" aria-label="Secret">
        {shown.secret}
      </p>
      {shown.note === undefined ? null : <p>{shown.note}</p>}
      <div className="actions">
        <button
          type="button"
          className="secondary"
          onClick={() => void navigator.clipboard?.writeText(shown.secret)}
        >
          Copy
        </button>
        <button type="button" onClick={onDone}>
          I have stored it
        </button>
      </div>
    </div>
  );
}
