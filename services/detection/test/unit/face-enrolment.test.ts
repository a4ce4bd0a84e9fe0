import { FACE_MODEL } from '@svc/face-engine';
import { faceEnrolmentOf } from '../../src/domain/fingerprint-reference-images.use-case';

// docs/spec/contracts.md §15: a reference picture is enrolled when it shows exactly one face.
const face = (score: number, width: number) => ({
  descriptor: new Float32Array(128).fill(score),
  score,
  width,
});

describe('faceEnrolmentOf', () => {
  it('when a picture shows exactly one face, then that face is enrolled with the model that made it', () => {
    const enrolment = faceEnrolmentOf([face(0.9, 150)]);
    expect(enrolment).toMatchObject({ status: 'enrolled', model: FACE_MODEL });
    expect(enrolment.status === 'enrolled' && enrolment.descriptor[0]).toBeCloseTo(0.9);
  });

  it('when a picture shows no face, several, or could not be examined, then it says which', () => {
    expect(faceEnrolmentOf([])).toEqual({ status: 'no_face' });
    expect(faceEnrolmentOf([face(0.9, 150), face(0.8, 120)])).toEqual({ status: 'several_faces' });
    expect(faceEnrolmentOf(null)).toEqual({ status: 'failed' });
  });

  it('when beside the face the detector also sees an unsure or a tiny one (a suit patch, a poster), then the face is still enrolled', () => {
    const main = face(0.92, 160);
    expect(faceEnrolmentOf([main, face(0.42, 150)])).toMatchObject({ status: 'enrolled' });
    expect(faceEnrolmentOf([main, face(0.7, 30)])).toMatchObject({ status: 'enrolled' });
    expect(faceEnrolmentOf([face(0.45, 150)])).toMatchObject({ status: 'enrolled' });
  });
});
