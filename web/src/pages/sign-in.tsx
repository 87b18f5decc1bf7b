import { useState } from 'preact/hooks';
import type { SessionInfoBody, SignInRequestBody } from '../../../src/contract/dashboard.ts';
import { api, messageOf } from '../api.ts';

export function SignIn({ onSignedIn }: { onSignedIn: (s: SessionInfoBody) => void }) {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    const body: SignInRequestBody = { email: String(form.get('email')), password: String(form.get('password')) };
    setBusy(true);
    setError('');
    try {
      onSignedIn(await api<SessionInfoBody>('POST', '/session', body));
    } catch (err) {
      setError(messageOf(err));
      setBusy(false);
    }
  };

  return (
    <>
      <h1>Sign in to Stemforge</h1>
      <form class="card stack" onSubmit={submit}>
        <label>
          Email
          <input name="email" type="email" autocomplete="username" required />
        </label>
        <label>
          Password
          <input name="password" type="password" autocomplete="current-password" required />
        </label>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
      </form>
      <p class="muted">
        The operator creates accounts with <code>stemforge accounts create</code>; the first start prints how to sign
        in.
      </p>
    </>
  );
}
