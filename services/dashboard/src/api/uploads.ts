import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, idempotencyKey, unwrap } from './client';
import { apiErrorOf, currentCsrfToken, type ApiError } from './http';

/** What POST /dashboard/api/uploads answers: the URL the picture is served at (ADR 0024). */
export interface UploadedPicture {
  url: string;
  contentType: string;
  sizeBytes: number;
}

/** The picture types the gateway accepts (it checks the bytes too). */
export const PICTURE_TYPES = 'image/png,image/jpeg,image/webp';

/**
 * Stores a picture with the dashboard and answers its URL. The body is the file itself with its
 * media type (not JSON), so this is a plain fetch with the session's CSRF token, not the typed client.
 */
export async function uploadPicture(file: File): Promise<UploadedPicture> {
  const headers: Record<string, string> = { 'Content-Type': file.type || 'application/octet-stream' };
  const token = currentCsrfToken();
  if (token !== undefined) headers['X-CSRF-Token'] = token;
  const res = await fetch('/dashboard/api/uploads', {
    method: 'POST',
    credentials: 'same-origin',
    headers,
    body: file,
  });
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) throw apiErrorOf(res.status, body, res.headers.get('Retry-After'));
  return (body as { data: UploadedPicture }).data;
}

export function useUploadPicture() {
  return useMutation<UploadedPicture, ApiError, File>({ mutationFn: uploadPicture });
}

/** Adds a reference picture to a claim by URL, through the public API (POST /claims/{id}/images). */
export function useAddClaimImage(claimId: string) {
  const client = useQueryClient();
  return useMutation<unknown, ApiError, string>({
    mutationFn: (url) =>
      unwrap(
        api.POST('/v1/svc/claims/{id}/images', {
          params: { path: { id: claimId }, header: { 'Idempotency-Key': idempotencyKey() } },
          body: { url },
        }),
      ),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['claim', claimId] }),
  });
}
