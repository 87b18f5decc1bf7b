import { describe, expect, test } from 'vitest';
import { hasUnsafeText, isEmailAddress, stripUnsafeText, unstorableReason } from '../../src/domain/safe-text.ts';
import { cleanFileName } from '../../src/domain/formats.ts';
import { attachmentDisposition } from '../../src/storage/content-disposition.ts';
import { findUnstorableText } from '../../src/routing/storable-input.ts';
import { parseInput } from '../../src/routing/parse-input.ts';
import { GrantCreditsRequest } from '../../src/contract/admin.ts';
import { ApiError } from '../../src/domain/errors.ts';
import { readableError } from '../../src/worker/job-errors.ts';

/** Issue 41: one rule for the text we store and show (docs/text.md). */
describe('text that cannot spoof or break a database', () => {
  const invisible = [
    '\u0000',
    '\u0007',
    '\u007f',
    '\u0085',
    '\u200b',
    '\u200d',
    '\u200e',
    '\u202e',
    '\u2066',
    '\u061c',
    '\ufeff',
    '\u00ad',
    '\u2028',
  ];

  test.each(invisible.map((c) => [`U+${c.codePointAt(0)!.toString(16).padStart(4, '0')}`, c]))(
    'plain text refuses and strips %s',
    (_name, c) => {
      expect(hasUnsafeText(`ab${c}cd`)).toBe(true);
      expect(stripUnsafeText(`ab${c}cd`)).toBe('abcd');
      expect(isEmailAddress(`a${c}b@x.y`)).toBe(false);
    },
  );

  test('ordinary text of every script passes untouched', () => {
    for (const s of ['Björk – Jóga (Live)', 'Ελληνικά', 'عربي', '日本語の曲', 'emoji 😀🎶', 'tab-free name']) {
      expect(hasUnsafeText(s)).toBe(false);
      expect(stripUnsafeText(s)).toBe(s);
    }
    expect(isEmailAddress('admin@localhost')).toBe(true);
  });

  test('storable text: NUL and lone surrogates are named, everything else passes', () => {
    expect(unstorableReason('a\u0000b')).toMatch(/NUL/);
    expect(unstorableReason('a\ud800b')).toMatch(/lone surrogate/);
    expect(unstorableReason('x\udc00')).toMatch(/lone surrogate/);
    expect(unstorableReason('😀\u202e')).toBeNull();
    expect(findUnstorableText({ a: [1, { b: 'ok' }, { c: 'x\u0000' }] })).toEqual({
      path: 'a[2].c',
      reason: 'must not contain NUL (U+0000) characters',
    });
    expect(findUnstorableText({ 'k\u0000': 1 })?.reason).toMatch(/^its name must not contain NUL/);
  });

  test('a NUL anywhere in a request part is a VALIDATION_ERROR naming the field, before the schema', () => {
    const refused = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        return err as ApiError;
      }
      throw new Error('not refused');
    };
    const err = refused(() => parseInput(GrantCreditsRequest, { seconds: 5, note: 'a\u0000b' }, 'body'));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.message).toBe("Invalid field 'note' in body: it must not contain NUL (U+0000) characters.");
    expect(refused(() => parseInput(GrantCreditsRequest, { id: 'x\u0000' }, 'path')).message).toMatch(
      /field 'id' in path/,
    );
    // A bidi control in a typed note is the schema's refusal, with its own message.
    const bidi = refused(() => parseInput(GrantCreditsRequest, { seconds: 5, note: 'evil\u202etxt' }, 'body'));
    expect(bidi.message).toMatch(/'note'.*invisible characters/);
    // 1e400 parses as Infinity: the message says so instead of "expected number, got number".
    const inf = refused(() => parseInput(GrantCreditsRequest, { seconds: Infinity, note: 'x' }, 'body'));
    expect(inf.message).toBe(
      "Invalid field 'seconds' in body: expected a finite number; the number sent is too large to represent (it reads as Infinity)",
    );
  });

  test('file names lose invisible characters; Content-Disposition never carries them', () => {
    expect(cleanFileName('\u202egpj.zip')).toBe('gpj.zip');
    expect(cleanFileName('so\u200bng\u0000.mp3')).toBe('song.mp3');
    const cd = attachmentDisposition('\u202Egpj\u200b.zip');
    expect(cd).toBe(`attachment; filename="gpj.zip"; filename*=UTF-8''gpj.zip`);
    expect(attachmentDisposition('a\ud800b.mp3')).toContain("filename*=UTF-8''a%EF%BF%BDb.mp3");
  });

  test('a failure message holding NUL or controls is stored as plain text', () => {
    expect(readableError(new Error('ffmpeg: bad\u0000byte\u001b[31m here'))).toBe('ffmpeg: bad byte [31m here');
  });
});
