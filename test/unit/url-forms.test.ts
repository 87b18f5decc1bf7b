import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors.ts';
import { parseVideoUrl } from '../../src/domain/video-url.ts';
import { parseTrackUrl } from '../../src/domain/track-url.ts';

const ID = 'dQw4w9WgXcQ';
const CANONICAL = `https://www.youtube.com/watch?v=${ID}`;

function rejection(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected a rejection');
}

describe('parseVideoUrl accepts', () => {
  it.each([
    // the contract's four forms
    [`https://www.youtube.com/watch?v=${ID}`],
    [`https://youtu.be/${ID}`],
    [`https://www.youtube.com/embed/${ID}`],
    [ID],
    // extra parameters, http, no scheme, trailing slash, blanks, case
    [`https://www.youtube.com/watch?v=${ID}&t=42s&list=PLx&index=3`],
    [`https://www.youtube.com/watch?feature=share&v=${ID}`],
    [`http://www.youtube.com/watch?v=${ID}`],
    [`youtube.com/watch?v=${ID}`],
    [`www.youtube.com/watch?v=${ID}`],
    [`//www.youtube.com/watch?v=${ID}`],
    [`  https://youtu.be/${ID}?si=abc  `],
    [`https://youtu.be/${ID}/`],
    [`HTTPS://WWW.YOUTUBE.COM/watch?v=${ID}`],
    [`https://www.youtube.com./watch?v=${ID}`],
    // host variants
    [`https://youtube.com/watch?v=${ID}`],
    [`https://m.youtube.com/watch?v=${ID}`],
    [`https://music.youtube.com/watch?v=${ID}&feature=share`],
    [`https://www.youtube-nocookie.com/embed/${ID}?rel=0`],
    [`https://youtube-nocookie.com/embed/${ID}`],
    [`https://www.youtube.com/shorts/${ID}`],
    [`https://youtube.com/shorts/${ID}?feature=share`],
    [`https://www.youtube.com/live/${ID}`],
    [`https://m.youtube.com/embed/${ID}`],
    [`https://www.youtube.com:443/watch?v=${ID}`],
  ])('%s', (input) => {
    expect(parseVideoUrl(input)).toEqual({ videoId: ID, canonicalUrl: CANONICAL });
  });

  it('keeps ids with "-" and "_" and their case', () => {
    expect(parseVideoUrl('https://youtu.be/a-B_c-D_e-F').videoId).toBe('a-B_c-D_e-F');
    expect(parseVideoUrl('_-_-_-_-_-_').canonicalUrl).toBe('https://www.youtube.com/watch?v=_-_-_-_-_-_');
  });
});

describe('parseVideoUrl rejects', () => {
  it.each([
    ['', /empty/],
    ['   ', /empty/],
    ['dQw4w9WgXc', /"dQw4w9WgXc" is not a video id \(11 characters/],
    ['dQw4w9WgXcQQ', /not a video id/],
    ['dQw4w9WgX!Q', /not a video id/],
    ['dQw4w9WgX Q', /not a video id/],
    [`https://www.youtube.com/watch?v=${ID}x`, /not a video id/],
    ['https://www.youtube.com/watch?v=abc', /"abc" is not a video id/],
    ['https://www.youtube.com/watch?v=', /no video id/],
    ['https://www.youtube.com/watch', /no video id/],
    [`https://www.youtube.com/watch?v=${ID}&v=aaaaaaaaaaa`, /more than one video/],
    ['https://www.youtube.com/playlist?list=PLrAXtmErZgOeiKm4sgNOknGvNjby9efdf', /Playlists are not supported/],
    ['https://www.youtube.com/watch?list=PLrAXtmErZgOeiKm4sgNOknGvNjby9efdf', /Playlists are not supported/],
    [`https://youtu.be/${ID}/extra`, /exactly one path segment/],
    ['https://youtu.be/', /exactly one path segment/],
    [`https://www.youtube.com/embed/${ID}/x`, /exactly one segment after \/embed\//],
    ['https://www.youtube.com/embed/', /exactly one segment/],
    ['https://www.youtube.com/shorts/short', /not a video id/],
    [`https://www.youtube-nocookie.com/watch?v=${ID}`, /Only embed addresses/],
    ['https://www.youtube.com/', /no video id/],
    ['https://www.youtube.com/@SomeChannel', /not a video page/],
    ['https://www.youtube.com/channel/UC38IQsAvIsxxjztdMZQtwHA', /not a video page/],
    [`https://www.youtube.com/v/${ID}`, /not a video page/],
    [`https://vimeo.com/${ID}`, /"vimeo.com" is not a supported video site host/],
    [`https://www.youtube.com.evil.example/watch?v=${ID}`, /not a supported video site host/],
    [`https://evilyoutube.com/watch?v=${ID}`, /not a supported video site host/],
    [`https://www.youtube.com@evil.example/watch?v=${ID}`, /user name or password|not a supported/],
    [`https://user:pw@www.youtube.com/watch?v=${ID}`, /user name or password/],
    [`https://www.youtube.com:8443/watch?v=${ID}`, /port/],
    ['javascript:alert(1)', /"javascript:" addresses are not accepted/],
    [`JavaScript://www.youtube.com/watch?v=${ID}`, /"javascript:" addresses are not accepted/],
    [`data:text/html,${ID}`, /"data:"/],
    [`ftp://www.youtube.com/watch?v=${ID}`, /"ftp:"/],
    [`file:///watch?v=${ID}`, /"file:"/],
    [`https://www.youtube.com/watch?v=${ID} https://evil.example`, /spaces/],
    [`https://www.youtube.com/watch?v=${ID}\n`, undefined], // trailing newline is trimmed: accepted, see below
  ])('%s', (input, message) => {
    if (message === undefined) {
      expect(parseVideoUrl(input).videoId).toBe(ID);
      return;
    }
    const err = rejection(() => parseVideoUrl(input));
    expect(err.code).toBe('INVALID_VIDEO_URL');
    expect(err.status).toBe(400);
    expect(err.message).toMatch(message);
    expect(err.message).toMatch(/Accepted forms/);
  });

  it('refuses non-strings and very long input', () => {
    expect(rejection(() => parseVideoUrl(42 as unknown as string)).code).toBe('INVALID_VIDEO_URL');
    expect(
      rejection(() => parseVideoUrl(`https://www.youtube.com/watch?v=${ID}&x=${'a'.repeat(3000)}`)).message,
    ).toMatch(/longer than/);
  });
});

describe('parseTrackUrl accepts', () => {
  it.each([
    ['https://soundcloud.com/forss/flickermood', 'forss/flickermood'],
    ['https://soundcloud.com/forss/flickermood/', 'forss/flickermood'],
    [
      'https://soundcloud.com/forss/flickermood?si=abc123&utm_source=clipboard&in=forss/sets/soulhack',
      'forss/flickermood',
    ],
    ['https://soundcloud.com/forss/flickermood#t=0:30', 'forss/flickermood'],
    ['http://soundcloud.com/forss/flickermood', 'forss/flickermood'],
    ['soundcloud.com/forss/flickermood', 'forss/flickermood'],
    ['https://www.soundcloud.com/forss/flickermood', 'forss/flickermood'],
    ['https://m.soundcloud.com/forss/flickermood', 'forss/flickermood'],
    ['https://SoundCloud.com/user-123_abc/track-name_2', 'user-123_abc/track-name_2'],
  ])('%s', (input, trackId) => {
    expect(parseTrackUrl(input)).toEqual({
      kind: 'track',
      trackId,
      shortCode: null,
      canonicalUrl: `https://soundcloud.com/${trackId}`,
    });
  });

  it.each([
    ['https://on.soundcloud.com/AbC123xYz'],
    ['on.soundcloud.com/AbC123xYz/'],
    ['https://on.soundcloud.com/AbC123xYz?utm=1'],
  ])('short code %s', (input) => {
    expect(parseTrackUrl(input)).toEqual({
      kind: 'short',
      trackId: null,
      shortCode: 'AbC123xYz',
      canonicalUrl: 'https://on.soundcloud.com/AbC123xYz',
    });
  });
});

describe('parseTrackUrl rejects', () => {
  it.each([
    ['', /empty/],
    ['https://soundcloud.com/', /home page/],
    ['https://soundcloud.com/forss', /user page/],
    ['https://soundcloud.com/forss/', /user page/],
    ['https://soundcloud.com/forss/sets/soulhack', /Playlists \(sets and albums\) are not supported/],
    ['https://soundcloud.com/forss/sets/soulhack/s-AbCdE', /Playlists/],
    ['https://soundcloud.com/forss/sets', /playlist list/],
    ['https://soundcloud.com/forss/albums', /playlist list/],
    ['https://soundcloud.com/forss/likes', /likes page/],
    ['https://soundcloud.com/forss/tracks', /tracks page/],
    ['https://soundcloud.com/forss/reposts', /reposts page/],
    ['https://soundcloud.com/forss/followers', /followers page/],
    ['https://soundcloud.com/forss/following', /following page/],
    ['https://soundcloud.com/forss/popular-tracks', /popular-tracks page/],
    ['https://soundcloud.com/discover', /site page/],
    ['https://soundcloud.com/search?q=x', /site page/],
    ['https://soundcloud.com/search/sounds?q=x', /site page/],
    ['https://soundcloud.com/you/likes', /site page/],
    ['https://soundcloud.com/stations/track/forss/flickermood', /site page/],
    ['https://soundcloud.com/charts/top', /site page/],
    ['https://soundcloud.com/forss/flickermood/s-AbCdEfGh123', /Private tracks are not supported/],
    ['https://soundcloud.com/forss/flickermood?secret_token=s-AbCdE', /Private tracks are not supported/],
    ['https://soundcloud.com/forss/flickermood/recommended', /not a track page/],
    ['https://soundcloud.com/forss/flickermood/comments', /not a track page/],
    ['https://soundcloud.com/forss/flick%20ermood', /not a valid path segment/],
    ['https://on.soundcloud.com/', /short code/],
    ['https://on.soundcloud.com/abc/def', /short code/],
    ['https://on.soundcloud.com/abc-def', /short code/],
    ['https://api.soundcloud.com/tracks/123', /not a supported track site host/],
    ['https://soundcloud.app.goo.gl/abc', /not a supported track site host/],
    ['https://evil.example/forss/flickermood', /"evil.example" is not a supported track site host/],
    ['https://soundcloud.com.evil.example/forss/flickermood', /not a supported track site host/],
    ['https://www.youtube.com/watch?v=dQw4w9WgXcQ', /not a supported track site host/],
    ['https://user:pw@soundcloud.com/forss/flickermood', /user name or password/],
    ['https://soundcloud.com:8443/forss/flickermood', /port/],
    ['javascript:alert(1)', /"javascript:"/],
    ['ftp://soundcloud.com/forss/flickermood', /"ftp:"/],
  ])('%s', (input, message) => {
    const err = rejection(() => parseTrackUrl(input));
    expect(err.code).toBe('INVALID_TRACK_URL');
    expect(err.status).toBe(400);
    expect(err.message).toMatch(message);
  });
});
