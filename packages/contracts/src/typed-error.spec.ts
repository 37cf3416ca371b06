import {
  InvalidBase64Error,
  InvalidEnvelopeError,
  InvalidRefError,
  ObjectHashMismatchError,
} from '@world/canonical';
import { BadRequestError, NotFoundError } from './errors.js';
import { typedErrorOf } from './typed-error.js';

const REF = `sha256:${'a'.repeat(64)}` as const;

describe('typedErrorOf (one normaliser for every edge, world-spec §5.1)', () => {
  it('keeps a WorldError as it is', () => {
    const err = new NotFoundError('object not found');
    expect(typedErrorOf(err)).toBe(err);
  });

  it.each([
    ['a bad ref', new InvalidRefError('ref', 'digest must be lowercase hex')],
    ['bad base64', new InvalidBase64Error('payload')],
    ['a hash mismatch', new ObjectHashMismatchError(REF, REF)],
    ['a bad envelope', new InvalidEnvelopeError('semanticId', 'is empty')],
  ])('answers %s as the caller’s BadRequest with its message', (_row, err) => {
    expect(typedErrorOf(err)).toEqual(new BadRequestError(err.message));
  });

  it.each([[new Error('/var/secret exploded')], ['a string'], [undefined]])(
    'leaves %p untyped',
    (err) => {
      expect(typedErrorOf(err)).toBeUndefined();
    },
  );
});
