import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { errors } from '@svc/errors';
import { authenticateSession } from '../../domain/authenticate-session.use-case';
import { memberTenant } from '../../domain/members';
import type { GatewayContext } from '../../domain/gateway-context';
import {
  checkDeclaredType,
  MAX_UPLOAD_BYTES,
  readUpload,
  storeUpload,
  uploadTooLarge,
} from '../../domain/upload';
import { sessionCredentials } from './session-cookie';

const UPLOAD_ID = /^[A-Za-z0-9_-]{24}$/;

/** The picture's bytes as they come, up to the limit (413 past it), never inflated (415). */
const rawPicture = express.raw({ type: () => true, limit: MAX_UPLOAD_BYTES, inflate: false });

function readPicture(req: Request, res: Response): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const done: NextFunction = (err?: unknown) => {
      if (err !== undefined && err !== null) {
        const type = (err as { type?: unknown }).type;
        reject(type === 'entity.too.large' ? uploadTooLarge() : err);
        return;
      }
      resolve(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
    };
    void rawPicture(req, res, done);
  });
}

/** Where the served picture is reached from: PUBLIC_BASE_URL, else the address the browser used. */
function baseUrlOf(ctx: GatewayContext, req: Request): string {
  return ctx.publicBaseUrl ?? `${req.protocol}://${req.header('host') ?? 'localhost'}`;
}

/**
 * Reference pictures uploaded from the dashboard (ADR 0024). The public API takes reference
 * images by URL only, so `POST /dashboard/api/uploads` (a session's write: CSRF and same origin)
 * stores the picture and answers the URL `GET /dashboard/uploads/<id>` serves it at; the dashboard
 * then sends that URL through the public API like any other. Mounted before the JSON body parser:
 * the body is the picture itself, with its media type.
 */
export function uploadRoutes(router: Router, ctx: GatewayContext): void {
  router.post('/dashboard/api/uploads', async (req, res) => {
    const session = await authenticateSession(ctx, sessionCredentials(req));
    const platformId = memberTenant(session, 'write', 'upload pictures');
    checkDeclaredType(req.header('content-type'));
    const length = Number(req.header('content-length') ?? '0');
    if (Number.isFinite(length) && length > MAX_UPLOAD_BYTES) throw uploadTooLarge();
    // A place in this replica's uploads before a byte is read (429 past it, §17).
    const giveBack = ctx.uploadBudget.take(session.account.id);
    let stored: Awaited<ReturnType<typeof storeUpload>>;
    try {
      const bytes = await readPicture(req, res);
      stored = await storeUpload(ctx, {
        platformId,
        accountId: session.account.id,
        bytes,
      });
    } finally {
      giveBack();
    }
    const url = `${baseUrlOf(ctx, req)}/dashboard/uploads/${stored.id}`;
    res
      .status(201)
      .location(url)
      .json({ data: { url, contentType: stored.contentType, sizeBytes: stored.sizeBytes } });
  });

  router.get('/dashboard/uploads/:id', async (req, res) => {
    const id = String(req.params.id);
    const upload = UPLOAD_ID.test(id) ? await readUpload(ctx, id) : null;
    if (upload === null) throw errors.notFound('Upload', id);
    res
      .status(200)
      .set({
        'Content-Type': upload.contentType,
        'X-Content-Type-Options': 'nosniff',
        // The bytes under an id never change; nothing in them may run if opened as a page.
        'Cache-Control': 'public, max-age=31536000, immutable',
        'Content-Security-Policy': "default-src 'none'; sandbox",
      })
      .end(upload.bytes);
  });
}
