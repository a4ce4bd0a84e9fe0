import { useId, type ReactNode } from 'react';

export interface ChartTable {
  /** The header of each column; the first column names the row. */
  columns: string[];
  rows: (string | number)[][];
}

/**
 * A chart with its text alternative: the drawing is hidden from assistive technology and replaced
 * by a one-sentence summary (the figure's description) and the same figures as a table, which
 * anyone can open by keyboard.
 */
export function ChartFigure({
  title,
  summary,
  table,
  empty,
  children,
}: {
  title: string;
  /** What the chart shows, in words (read by a screen reader, shown under the title). */
  summary: string;
  table: ChartTable;
  /** Shown (and read) instead of the drawing when there is nothing to draw: what to do next. */
  empty?: ReactNode;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <figure className="chart card" aria-labelledby={`${id}-title`} aria-describedby={`${id}-summary`}>
      <figcaption>
        <h3 id={`${id}-title`}>{title}</h3>
        <p className="hint" id={`${id}-summary`}>
          {summary}
        </p>
      </figcaption>
      {empty === undefined ? (
        <div className="chart-drawing" aria-hidden="true">
          {children}
        </div>
      ) : (
        <div className="empty">{empty}</div>
      )}
      {table.rows.length === 0 ? null : (
        <details>
          <summary>{title}: the figures as a table</summary>
          <div className="table-wrap" tabIndex={0}>
            <table>
              <caption className="visually-hidden">{title}</caption>
              <thead>
                <tr>
                  {table.columns.map((column) => (
                    <th scope="col" key={column}>
                      {column}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {table.rows.map((row) => (
                  <tr key={String(row[0])}>
                    {row.map((cell, index) =>
                      index === 0 ? (
                        <th scope="row" key={index}>
                          {cell}
                        </th>
                      ) : (
                        <td key={index}>{cell}</td>
                      ),
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      )}
    </figure>
  );
}
