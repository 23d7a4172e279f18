import { describe, expect, it } from 'vitest';
import { requestHeader } from '../../shared/http/headers';

describe('requestHeader', () => {
  it('finds a header whatever case the client wrote its name in', () => {
    expect(requestHeader({ authorization: 'Bearer a' }, 'authorization')).toBe('Bearer a');
    expect(requestHeader({ Authorization: 'Bearer b' }, 'authorization')).toBe('Bearer b');
    expect(requestHeader({ AUTHORIZATION: 'Bearer c' }, 'authorization')).toBe('Bearer c');
    expect(requestHeader({ 'Content-Type': 'application/json', Host: 'x' }, 'content-type')).toBe('application/json');
  });

  it('answers undefined for a header that is absent, or for no headers at all', () => {
    expect(requestHeader({ 'X-Authorization': 'Bearer a', Authorizatio: 'b' }, 'authorization')).toBeUndefined();
    expect(requestHeader({}, 'authorization')).toBeUndefined();
    expect(requestHeader(null, 'authorization')).toBeUndefined();
    expect(requestHeader(undefined, 'authorization')).toBeUndefined();
  });
});
