import path from 'node:path';
import { requestJson, type JsonReply } from '@svc/test-kit';

export const ROOT = path.resolve(__dirname, '..');

export type Reply = JsonReply;

/** One HTTP call with a bearer token, JSON in and out. */
export const call = requestJson;
