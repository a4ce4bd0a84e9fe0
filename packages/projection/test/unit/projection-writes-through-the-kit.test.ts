import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

// ADR 0038: a service writes its copy of another service's entities only through this kit
// (ProjectionTable, Tombstones), whose statements state the ordering rule once. This check reads
// every service's src (syntax only, no type-checking), finds the tables each one hands to the kit,
// and fails on any other write of them in that service: a Kysely insertInto (upsert or not),
// updateTable, deleteFrom, mergeInto or replaceInto, or raw SQL (INSERT INTO, UPDATE, DELETE FROM,
// MERGE INTO, TRUNCATE) in any string or template. Deletes count too: a projection deletes by a
// tombstone, or a late, older event brings the row back. Migrations (.sql) are not read: they run
// once, before any event, and are reviewed as schema changes.

const ROOT = path.resolve(__dirname, '../../../..');
const KIT = '@svc/projection';
const KIT_CLASSES = new Set(['ProjectionTable', 'Tombstones']);
const KYSELY_WRITES = new Set(['insertInto', 'replaceInto', 'updateTable', 'deleteFrom', 'mergeInto']);
// The keyword, then the table (a name, possibly quoted or schema-qualified, or an interpolation).
// UPDATE after FOR, DO, KEY or ON is a lock, a conflict action or a foreign-key rule, not a target.
const RAW_WRITE =
  /(?<!\b(?:for|do|key|on)\s+)\b(insert\s+into|update|delete\s+from|merge\s+into|truncate(?:\s+table)?)\s+(?:only\s+)?(\$\{[^}]*\}|"?[a-z_][\w$]*"?(?:\."?[a-z_][\w$]*"?)?)/gi;

/** The services that keep projections (ADR 0038's context): each must be found handing tables to the kit. */
const KEEP_PROJECTIONS = ['billing', 'detection', 'enforcement', 'licensing', 'registry'];

interface Site {
  /** Relative to the workspace root. */
  file: string;
  line: number;
  /** The enclosing function or method. */
  in: string;
}
interface KitTable extends Site {
  table: string;
  kind: string;
}
interface Write extends Site {
  table: string;
  /** `insertInto … onConflict`, `updateTable`, `INSERT INTO … ON CONFLICT`, … */
  how: string;
}
interface Unresolved extends Site {
  /** A table handed to the kit, or one written. */
  of: 'kit' | 'write';
  what: string;
}
interface ServiceScan {
  service: string;
  projections: KitTable[];
  writes: Write[];
  unresolved: Unresolved[];
}
interface AllowedWrite {
  file: string;
  in: string;
  table: string;
  how: string;
  reason: string;
}

/**
 * Hand-written writes of a projection table that are not the projection's state: each names why.
 * An entry that no longer matches a write fails the check (it would hide the next one).
 */
const ALLOWED: AllowedWrite[] = [
  {
    file: 'services/detection/src/data-access/identity.repository.ts',
    in: 'removeBox',
    table: 'identities',
    how: 'updateTable',
    reason:
      "clears a claim's box once deletedBoxes (the kit's Tombstones) has buried it in the same " +
      'transaction: upsertBox refuses a buried box first, so no later event brings it back and no ' +
      'position is needed to order this write',
  },
  {
    file: 'services/detection/src/data-access/identity.repository.ts',
    in: 'takeBoxAnnouncement',
    table: 'identities',
    how: 'updateTable',
    reason:
      "detection's own columns of the row (boxAnnouncementDue, announcedBoxIds), not the registry's data",
  },
  {
    file: 'services/detection/src/data-access/identity.repository.ts',
    in: 'touch',
    table: 'identities',
    how: 'updateTable',
    reason:
      "advances detection's own changeSeq (the catalogue's change feed) when a claim's pictures change; " +
      'no registry column',
  },
];

/** ADR 0038's deliberate guards, each ordered by something else than the owner's entity version. */
const ADR_0038_EXCEPTIONS: (AllowedWrite & { service: string })[] = [
  {
    service: 'registry',
    file: 'services/registry/src/data-access/box.repository.ts',
    in: 'recordLogEntry',
    table: 'boxes',
    how: 'updateTable',
    reason: "licensing's transparency log position on the registry's own box, ordered by log index",
  },
  {
    service: 'enforcement',
    file: 'services/enforcement/src/data-access/violation.repository.ts',
    in: 'recordLogEntry',
    table: 'violations',
    how: 'updateTable',
    reason: "licensing's transparency log position on enforcement's own violation, ordered by log index",
  },
  {
    service: 'enforcement',
    file: 'services/enforcement/src/data-access/appeal.repository.ts',
    in: 'recordLogEntry',
    table: 'appeals',
    how: 'updateTable',
    reason: "licensing's transparency log position on enforcement's own appeal, ordered by log index",
  },
  {
    service: 'enforcement',
    file: 'services/enforcement/src/data-access/avatar.repository.ts',
    in: 'recordAnswer',
    table: 'avatars',
    how: 'updateTable',
    reason: "the knowledge position of detection's answer on enforcement's own avatar (ADR 0032)",
  },
  {
    service: 'detection',
    file: 'services/detection/src/data-access/reference-image.repository.ts',
    in: 'replace',
    table: 'referenceImages',
    how: 'insertInto … onConflict',
    reason: "a claim's reference images, replaced when the claim's state applies (its position orders them)",
  },
];

/** The name PostgreSQL sees: Kysely's CamelCasePlugin turns `statsUsage` into `stats_usage`. */
function sqlName(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).toLowerCase();
}

function scanFile(file: string, text: string): Omit<ServiceScan, 'service'> {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: Omit<ServiceScan, 'service'> = { projections: [], writes: [], unresolved: [] };
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const site = (node: ts.Node, pos = node.getStart(sf)): Site => ({
    file,
    line: lineOf(pos),
    in: enclosingName(node),
  });

  // A name declared const more than once (in two scopes) is left unread: it could be either.
  const consts = new Map<string, ts.Expression | undefined>();
  const calls: ts.CallExpression[] = [];
  const kitNames = new Map<string, string>(); // local name -> ProjectionTable | Tombstones
  const kitNamespaces = new Set<string>();
  const visitAll = (node: ts.Node, f: (n: ts.Node) => void): void => {
    f(node);
    node.forEachChild((child) => visitAll(child, f));
  };
  visitAll(sf, (node) => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer !== undefined) {
      if (ts.isVariableDeclarationList(node.parent) && (node.parent.flags & ts.NodeFlags.Const) !== 0) {
        consts.set(node.name.text, consts.has(node.name.text) ? undefined : node.initializer);
      }
    }
    if (ts.isCallExpression(node)) calls.push(node);
    if (
      ts.isImportDeclaration(node) &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      node.moduleSpecifier.text === KIT
    ) {
      const bindings = node.importClause?.namedBindings;
      if (bindings !== undefined && ts.isNamespaceImport(bindings)) kitNamespaces.add(bindings.name.text);
      if (bindings !== undefined && ts.isNamedImports(bindings)) {
        for (const spec of bindings.elements)
          kitNames.set(spec.name.text, (spec.propertyName ?? spec.name).text);
      }
    }
  });

  /** The string values an expression can take here, or undefined when the code does not say. */
  function strings(expr: ts.Expression, seen = new Set<ts.Node>()): string[] | undefined {
    if (seen.has(expr)) return undefined;
    seen.add(expr);
    if (ts.isStringLiteral(expr) || ts.isNoSubstitutionTemplateLiteral(expr)) return [expr.text];
    if (ts.isParenthesizedExpression(expr) || ts.isAsExpression(expr) || ts.isSatisfiesExpression(expr)) {
      return strings(expr.expression, seen);
    }
    if (ts.isConditionalExpression(expr)) {
      const both = [strings(expr.whenTrue, seen), strings(expr.whenFalse, seen)];
      return both.every((s) => s !== undefined) ? both.flat() : undefined;
    }
    if (!ts.isIdentifier(expr)) return undefined;
    const parameter = parameterOf(expr);
    if (parameter !== undefined) return argumentsOf(parameter, seen);
    const value = consts.get(expr.text);
    return value === undefined ? undefined : strings(value, seen);
  }

  /** The parameter an identifier names, when it is one of an enclosing function's. */
  function parameterOf(id: ts.Identifier): ts.ParameterDeclaration | undefined {
    for (let n: ts.Node | undefined = id.parent; n !== undefined; n = n.parent) {
      if (ts.isFunctionLike(n)) {
        const p = n.parameters.find((q) => ts.isIdentifier(q.name) && q.name.text === id.text);
        if (p !== undefined) return p;
      }
    }
    return undefined;
  }

  /** What a parameter receives: the arguments of every call of its (file-local) function here. */
  function argumentsOf(parameter: ts.ParameterDeclaration, seen: Set<ts.Node>): string[] | undefined {
    const fn = parameter.parent;
    const index = fn.parameters.indexOf(parameter);
    const named = ts.isFunctionDeclaration(fn)
      ? fn
      : (ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) && ts.isVariableDeclaration(fn.parent)
        ? fn.parent
        : undefined;
    if (named === undefined || named.name === undefined || !ts.isIdentifier(named.name)) return undefined;
    const name = named.name.text;
    // An exported function has callers elsewhere: this file cannot say what they pass.
    const statement = ts.isFunctionDeclaration(named) ? named : named.parent.parent;
    if (
      ts.canHaveModifiers(statement) &&
      ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
    ) {
      return undefined;
    }
    const callers = calls.filter((c) => ts.isIdentifier(c.expression) && c.expression.text === name);
    if (callers.length === 0) return undefined;
    const values: string[] = [];
    for (const call of callers) {
      const argument = call.arguments[index] ?? parameter.initializer;
      const found = argument === undefined ? undefined : strings(argument, seen);
      if (found === undefined) return undefined;
      values.push(...found);
    }
    return values;
  }

  function enclosingName(node: ts.Node): string {
    for (let n = node.parent; n !== undefined; n = n.parent) {
      if (
        (ts.isMethodDeclaration(n) || ts.isFunctionDeclaration(n) || ts.isAccessor(n)) &&
        n.name !== undefined
      ) {
        return n.name.getText(sf);
      }
      if (ts.isConstructorDeclaration(n)) return 'constructor';
      if (
        (ts.isArrowFunction(n) || ts.isFunctionExpression(n)) &&
        (ts.isVariableDeclaration(n.parent) ||
          ts.isPropertyAssignment(n.parent) ||
          ts.isPropertyDeclaration(n.parent))
      ) {
        return n.parent.name.getText(sf);
      }
    }
    return '(module)';
  }

  function kitClassOf(callee: ts.Expression): string | undefined {
    if (ts.isIdentifier(callee)) return kitNames.get(callee.text);
    if (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression)) {
      if (kitNamespaces.has(callee.expression.text)) return callee.name.text;
    }
    return undefined;
  }

  function onKitTable(node: ts.NewExpression, kind: string): void {
    const [first] = node.arguments ?? [];
    let table: ts.Expression | undefined = first;
    if (kind === 'ProjectionTable') {
      const spec = first !== undefined && ts.isIdentifier(first) ? consts.get(first.text) : first;
      const property =
        spec !== undefined && ts.isObjectLiteralExpression(spec)
          ? spec.properties.find((p) => p.name !== undefined && p.name.getText(sf) === 'table')
          : undefined;
      table =
        property !== undefined && ts.isPropertyAssignment(property)
          ? property.initializer
          : property !== undefined && ts.isShorthandPropertyAssignment(property)
            ? property.name
            : undefined;
    }
    let names = table === undefined ? undefined : strings(table);
    // The table's type argument says it too, when it is a literal.
    const typed = node.typeArguments?.[1];
    if (
      names === undefined &&
      typed !== undefined &&
      ts.isLiteralTypeNode(typed) &&
      ts.isStringLiteral(typed.literal)
    ) {
      names = [typed.literal.text];
    }
    if (names === undefined) {
      out.unresolved.push({
        ...site(node),
        of: 'kit',
        what: `the table of ${node.getText(sf).split('\n')[0]}`,
      });
      return;
    }
    for (const name of new Set(names)) out.projections.push({ ...site(node), table: name, kind });
  }

  function onKyselyWrite(call: ts.CallExpression, method: string): void {
    // The chain the call starts: insertInto(…).values(…).onConflict(…) is an upsert.
    const chain: string[] = [];
    for (
      let n: ts.Node = call;
      ts.isPropertyAccessExpression(n.parent) && ts.isCallExpression(n.parent.parent);
    ) {
      chain.push(n.parent.name.text);
      n = n.parent.parent;
    }
    const how = chain.includes('onConflict') ? `${method} … onConflict` : method;
    const targets = call.arguments.flatMap((a) => (ts.isArrayLiteralExpression(a) ? [...a.elements] : [a]));
    for (const target of targets) {
      const names = strings(target);
      if (names === undefined) {
        out.unresolved.push({
          ...site(call, target.getStart(sf)),
          of: 'write',
          what: `${method}(${target.getText(sf)})`,
        });
        continue;
      }
      // `'boxes as b'`, `'public.boxes'`: the table is the name before the alias, after the schema.
      for (const name of names) {
        const table = (name.split(/\s+as\s+/i)[0] ?? name).trim().split('.').pop() ?? name;
        out.writes.push({ ...site(call, target.getStart(sf)), table, how });
      }
    }
  }

  function onRawSql(literal: ts.Node): void {
    const text = literal.getText(sf);
    const start = literal.getStart(sf);
    for (const match of text.matchAll(RAW_WRITE)) {
      const keyword = (match[1] ?? '').toUpperCase().replace(/\s+/g, ' ');
      let target = match[2] ?? '';
      if (target.startsWith('${')) {
        const named = /^\$\{\s*sql\.table\(\s*(['"`])([^'"`]+)\1\s*\)\s*\}$/.exec(target);
        if (named === null) {
          out.unresolved.push({
            ...site(literal, start + (match.index ?? 0)),
            of: 'write',
            what: `${keyword} ${target}`,
          });
          continue;
        }
        target = named[2] ?? '';
      }
      const table = target.replace(/"/g, '').split('.').pop() ?? target;
      const rest = text.slice((match.index ?? 0) + match[0].length);
      const upsert = keyword === 'INSERT INTO' && /\bon\s+conflict\b/i.test(rest.split(/;/)[0] ?? '');
      out.writes.push({
        ...site(literal, start + (match.index ?? 0)),
        table: sqlName(table),
        how: upsert ? `${keyword} … ON CONFLICT` : keyword,
      });
    }
  }

  visitAll(sf, (node) => {
    if (ts.isNewExpression(node)) {
      const kind = kitClassOf(node.expression);
      if (kind !== undefined && KIT_CLASSES.has(kind)) onKitTable(node, kind);
    }
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      if (KYSELY_WRITES.has(method)) onKyselyWrite(node, method);
    }
    // A template with holes is read whole, with what its holes hold.
    const literal =
      ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node);
    if (literal && !hasTemplateAncestor(node)) onRawSql(node);
  });
  return out;
}

function hasTemplateAncestor(node: ts.Node): boolean {
  for (let n = node.parent; n !== undefined; n = n.parent) if (ts.isTemplateExpression(n)) return true;
  return false;
}

/** One service's sources read as one: its kit tables, its writes, what could not be read. */
function scanSources(service: string, sources: { file: string; text: string }[]): ServiceScan {
  const scan: ServiceScan = { service, projections: [], writes: [], unresolved: [] };
  for (const { file, text } of sources) {
    const found = scanFile(file, text);
    scan.projections.push(...found.projections);
    scan.writes.push(...found.writes);
    scan.unresolved.push(...found.unresolved);
  }
  return scan;
}

function sourcesOf(dir: string): { file: string; text: string }[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.endsWith('.generated.ts'))
    .sort()
    .map((f) => {
      const absolute = path.join(dir, f);
      return { file: path.relative(ROOT, absolute), text: readFileSync(absolute, 'utf8') };
    });
}

/** The writes of a service's projection tables that are not the kit's, allowed ones left out. */
function handWrittenProjectionWrites(
  scan: ServiceScan,
  allowed: AllowedWrite[] = [],
): (Write & { projection: KitTable })[] {
  const projections = new Map(scan.projections.map((p) => [sqlName(p.table), p]));
  return scan.writes.flatMap((w) => {
    const projection = projections.get(sqlName(w.table));
    if (projection === undefined || allowed.some((a) => matches(a, w))) return [];
    return [{ ...w, projection }];
  });
}

function describeWrite(service: string, w: Write & { projection: KitTable }): string {
  return (
    `${w.file}:${w.line} (${w.in}) ${w.how} '${w.table}': ${service}'s projection table ` +
    `(new ${w.projection.kind} at ${w.projection.file}:${w.projection.line}); write it through the kit, ` +
    'or add a reason to ALLOWED when it is not the projection state'
  );
}

function matches(a: AllowedWrite, w: Write): boolean {
  return a.file === w.file && a.in === w.in && sqlName(a.table) === sqlName(w.table) && a.how === w.how;
}

const services = readdirSync(path.join(ROOT, 'services'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();
const scans = services.map((service) =>
  scanSources(service, sourcesOf(path.join(ROOT, 'services', service, 'src'))),
);
const scanOf = (service: string) => scans.find((s) => s.service === service);

describe("services' projections are written only through @svc/projection (ADR 0038)", () => {
  it.each(KEEP_PROJECTIONS)('when %s is read, then the tables it hands to the kit are found', (service) => {
    const tables = scanOf(service)?.projections.map((p) => p.table) ?? [];

    expect(tables).not.toEqual([]);
  });

  it('when a table handed to the kit, or written by a service that keeps projections, cannot be read from the code, then the check fails rather than guess', () => {
    // A service without projections has nothing to protect: what it writes is its own.
    const unresolved = scans.flatMap((s) =>
      s.unresolved
        .filter((u) => u.of === 'kit' || s.projections.length > 0)
        .map((u) => `${u.file}:${u.line} (${u.in}) ${u.what}`),
    );

    expect(unresolved).toEqual([]);
  });

  it('when a service writes one of its projection tables outside the kit, then the check names the file, line and table', () => {
    const found = scans.flatMap((s) =>
      handWrittenProjectionWrites(s, ALLOWED).map((w) => describeWrite(s.service, w)),
    );

    expect(found).toEqual([]);
  });

  it('when a write is allowed on a projection table, then that write still exists and the table is still a projection', () => {
    const stale = ALLOWED.filter((a) => {
      const scan = scans.find((s) => a.file.startsWith(`services/${s.service}/`));
      const projection = scan?.projections.some((p) => sqlName(p.table) === sqlName(a.table)) ?? false;
      return !projection || !(scan?.writes.some((w) => matches(a, w)) ?? false);
    });

    expect(stale).toEqual([]);
  });

  it.each(ADR_0038_EXCEPTIONS)(
    "when ADR 0038's exception in $file ($in) is found, then it writes the service's own $table, not a projection",
    (exception) => {
      const scan = scanOf(exception.service);
      const written = scan?.writes.some((w) => matches(exception, w)) ?? false;
      const projections = scan?.projections.map((p) => sqlName(p.table)) ?? [];

      expect(written).toBe(true);
      expect(projections).not.toContain(sqlName(exception.table));
    },
  );
});

describe('the scan, on sources written here', () => {
  const scanOne = (text: string) => scanSources('fixture', [{ file: 'fixture.ts', text }]);

  it('when a service upserts its projection table by hand, then the file, line and table are named', () => {
    const scan = scanOne(`import { ProjectionTable as Table } from '@svc/projection';
const licenses = new Table<DB, 'licenses'>({ table: 'licenses', key: 'licenseId', version: 'version' });
export async function save(tx: Queryable) {
  await db(tx)
    .insertInto('licenses as l')
    .values(row)
    .onConflict((c) => c.column('licenseId').doUpdateSet(row))
    .execute();
  await db(tx).updateTable('ledger').set(row).execute();
}`);

    expect(handWrittenProjectionWrites(scan).map((w) => describeWrite('billing', w))).toEqual([
      "fixture.ts:5 (save) insertInto … onConflict 'licenses': billing's projection table " +
        '(new ProjectionTable at fixture.ts:2); write it through the kit, ' +
        'or add a reason to ALLOWED when it is not the projection state',
    ]);
  });

  it('when raw SQL writes a projection table, then its snake_case name is matched; locks and conflict actions are not writes', () => {
    const scan = scanOne(`import * as kit from '@svc/projection';
const TABLE = 'statsUsage';
const usage = new kit.ProjectionTable<DB, typeof TABLE>({ table: TABLE, key: 'id', version: 'version' });
const gone = new kit.Tombstones<DB, 'deletedBoxes'>('deletedBoxes', 'boxId');
async function run(tx: Queryable) {
  await sql\`SELECT * FROM stats_usage FOR UPDATE\`.execute(tx);
  await sql\`INSERT INTO public.stats_usage (id) VALUES (\${id})
    ON CONFLICT (id) DO UPDATE SET version = excluded.version\`.execute(tx);
  await pool.query('delete from "deleted_boxes" where box_id = $1', [id]);
  await sql\`UPDATE \${sql.table('statsUsage')} SET version = 0\`.execute(tx);
}`);

    expect(handWrittenProjectionWrites(scan).map((w) => `${w.line} ${w.in} ${w.how} ${w.table}`)).toEqual([
      '7 run INSERT INTO … ON CONFLICT stats_usage',
      '9 run DELETE FROM deleted_boxes',
      '10 run UPDATE stats_usage',
    ]);
  });

  it("when a factory hands the kit its parameter (the registry's status tables), then every name it is called with counts", () => {
    const scan = scanOne(`import { ProjectionTable } from '@svc/projection';
function statusTable<T extends StatusTable>(table: T, key: ColumnOf<DB, T>) {
  return new ProjectionTable<DB, T>({ table, key, version: 'eventVersion' });
}
const violations = statusTable('statsViolations', 'violationId');
const licenses = statusTable('statsLicenses', 'licenseId');`);

    expect(scan.projections.map((p) => `${p.table} ${p.line} ${p.in}`)).toEqual([
      'statsViolations 3 statusTable',
      'statsLicenses 3 statusTable',
    ]);
    expect(scan.unresolved).toEqual([]);
  });

  it('when a table name is only known at run time, then it is reported as unreadable instead of passed over', () => {
    const scan = scanOne(`import { ProjectionTable } from '@svc/projection';
export function tableOf<T extends TableOf<DB>>(table: T) {
  return new ProjectionTable<DB, T>({ table, key: 'id', version: 'version' });
}
async function wipe(tx: Queryable, name: string) {
  await db(tx).deleteFrom(name).execute();
  await sql\`TRUNCATE \${sql.raw(name)}\`.execute(tx);
}`);

    expect(scan.unresolved.map((u) => `${u.line} ${u.in} ${u.what}`)).toEqual([
      "3 tableOf the table of new ProjectionTable<DB, T>({ table, key: 'id', version: 'version' })",
      '6 wipe deleteFrom(name)',
      '7 wipe TRUNCATE ${sql.raw(name)}',
    ]);
  });
});
