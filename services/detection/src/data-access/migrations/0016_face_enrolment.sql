-- Faces (docs/spec/contracts.md §15, ADR 0026): each reference image is enrolled with its
-- fingerprint and, when the picture shows exactly one face, that face's descriptor (128 float32
-- numbers, little-endian). The descriptor is biometric data: it lives only in this row and in the
-- replicas' memory, and goes with the row (image replaced, claim deleted, rejected or suspended).
ALTER TABLE reference_images
  ADD COLUMN face_status text NOT NULL DEFAULT 'pending'
    CHECK (face_status IN ('pending', 'enrolled', 'no_face', 'several_faces', 'failed')),
  ADD COLUMN face_descriptor bytea NULL,
  -- The recognition model that made the descriptor: one of another model is never compared.
  ADD COLUMN face_model text NULL,
  ADD CONSTRAINT reference_images_face_descriptor CHECK ((face_status = 'enrolled') = (face_descriptor IS NOT NULL));

-- Pictures fingerprinted before faces existed are enrolled again (their fingerprint is taken
-- again with the face, from the same fetch). Until then they match by fingerprint as before:
-- the fingerprint is kept, and the index reads it whatever the row's state.
UPDATE reference_images SET state = 'pending', next_attempt_at = now() WHERE state = 'indexed';
