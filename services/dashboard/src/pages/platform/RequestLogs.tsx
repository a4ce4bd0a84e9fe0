import { useState } from 'react';
import { formatNumber, formatTimestamp } from '../../api/format';
import { keyLabel, useKeys, useRequestLogs, type RequestLogQuery } from '../../api/platform';
import { SelectField } from '../../components/Field';
import { PAGE_SIZE, Pager } from '../../components/Pager';
import { QueryState } from '../../components/Status';
import { StatusFilter, type FilterOption } from '../../components/StatusFilter';

// The request log (issue #32, "Platforms"): each key's requests of the last three days, newest
// first: when, which operation, what it answered, how fast, and the request id to quote to
// support (every answer carries it in X-Request-Id). Searchable by request id.

type AnswerClass = NonNullable<RequestLogQuery['status']>;

const STATUSES: FilterOption<AnswerClass | ''>[] = [
  { value: '', label: 'Every answer' },
  { value: '2xx', label: 'Succeeded (2xx)' },
  { value: '4xx', label: 'Refused (4xx)' },
  { value: '5xx', label: 'Failed (5xx)' },
];

function badgeOf(status: number): string {
  if (status >= 500) return 'warn';
  if (status >= 400) return '';
  return 'ok';
}

export function RequestLogs() {
  const keys = useKeys();
  const [requestId, setRequestId] = useState('');
  const [keyId, setKeyId] = useState('');
  const [status, setStatus] = useState<AnswerClass | ''>('');
  const [offset, setOffset] = useState(0);
  const query: RequestLogQuery = {
    offset,
    limit: PAGE_SIZE,
    ...(requestId === '' ? {} : { requestId }),
    ...(keyId === '' ? {} : { keyId }),
    ...(status === '' ? {} : { status }),
  };
  const logs = useRequestLogs(query);
  const names = new Map((keys.data ?? []).map((key) => [key.id, keyLabel(key)]));
  const search = (wanted: string) => {
    // The same search again asks again: the request may have been made since.
    if (wanted === requestId && offset === 0) void logs.refetch();
    setRequestId(wanted);
    setOffset(0);
  };
  return (
    <section aria-labelledby="logs-title">
      <h1 id="logs-title">Request log</h1>
      <p>
        Every request made with your API keys in the last three days, newest first (the newest within a
        second).
      </p>
      <StatusFilter
        label="Answer"
        value={status}
        options={STATUSES}
        onChange={(chosen) => {
          setStatus(chosen);
          setOffset(0);
        }}
        searchName="Find a request"
        search={{
          label: 'Request id',
          name: 'requestId',
          value: requestId,
          onSearch: search,
          hint: "From an answer's X-Request-Id",
          button: 'Find',
        }}
      >
        <SelectField
          label="Key"
          name="keyId"
          value={keyId}
          onChange={(event) => {
            setKeyId(event.target.value);
            setOffset(0);
          }}
        >
          <option value="">Every key</option>
          {(keys.data ?? []).map((key) => (
            <option key={key.id} value={key.id}>
              {keyLabel(key)}
            </option>
          ))}
        </SelectField>
      </StatusFilter>
      <QueryState isPending={logs.isPending} error={logs.error} what="request log">
        {() =>
          logs.data === undefined || logs.data.meta.total === 0 ? (
            <p className="empty">
              {requestId !== '' || keyId !== '' || status !== ''
                ? 'No request matches.'
                : 'No requests yet: calls made with your API keys show here.'}
            </p>
          ) : (
            <>
              <div className="table-wrap" tabIndex={0}>
                <table>
                  <caption className="visually-hidden">Requests, newest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Time</th>
                      <th scope="col">Key</th>
                      <th scope="col">Request</th>
                      <th scope="col">Status</th>
                      <th scope="col">Latency</th>
                      <th scope="col">Request id</th>
                    </tr>
                  </thead>
                  <tbody>
                    {logs.data.data.map((entry) => (
                      <tr key={`${entry.requestId}:${entry.at}`}>
                        <td>{formatTimestamp(entry.at)}</td>
                        <td>{names.get(entry.keyId) ?? entry.keyId}</td>
                        <td>
                          <code>
                            {entry.method} {entry.path}
                          </code>
                          {entry.operation === null ? null : (
                            <>
                              <br />
                              <span className="hint">{entry.operation}</span>
                            </>
                          )}
                        </td>
                        <td>
                          <span className={`badge ${badgeOf(entry.status)}`}>{entry.status}</span>
                        </td>
                        <td>{formatNumber(entry.latencyMs)} ms</td>
                        <td>
                          <code>{entry.requestId}</code>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager
                offset={offset}
                limit={PAGE_SIZE}
                total={logs.data.meta.total}
                onChange={setOffset}
                label="Requests"
              />
            </>
          )
        }
      </QueryState>
    </section>
  );
}
