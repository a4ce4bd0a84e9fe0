-- Reference fingerprints v2 (ADR 0015): a stored fingerprint is now "v2:" and the hex of 19 hashes
-- (the picture, its one-sided crops and turns), where v1 was 96 hex characters. A v1 fingerprint
-- cannot be converted (the picture is needed), so it is fingerprinted again: back to pending, due
-- now. Until then the identity's picture does not match; its names still do.
UPDATE reference_images
   SET state = 'pending', fingerprint = NULL, attempts = 0, last_error = NULL, next_attempt_at = now()
 WHERE state = 'indexed' AND fingerprint NOT LIKE 'v2:%';

-- During a rolling upgrade a replica still on v1 may index a picture in the old format after the
-- statement above ran; the reference-image job requeues those, and this index keeps its look-up
-- cheap (it holds only such rows, normally none).
CREATE INDEX reference_images_outdated_idx ON reference_images (image_id)
  WHERE state = 'indexed' AND fingerprint NOT LIKE 'v2:%';
