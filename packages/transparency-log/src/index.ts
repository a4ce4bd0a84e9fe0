export { transparencyLogMigrations } from './migrations';
export {
  canonicalJson,
  TransparencyLog,
  treeHeadPayload,
  type LogPosition,
  type NewEntry,
  type SignedTreeHead,
  type StoredEntry,
  type TreeHeadSigner,
} from './transparency-log';
