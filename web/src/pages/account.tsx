import { useState } from 'preact/hooks';
import type { ChangePasswordRequestBody } from '../../../src/contract/dashboard.ts';
import { api, messageOf } from '../api.ts';

export function Account({ email }: { email: string }) {
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);

  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    const formEl = e.target as HTMLFormElement;
    const form = new FormData(formEl);
    if (form.get('newPassword') !== form.get('confirm')) {
      setMessage({ ok: false, text: 'The new passwords do not match.' });
      return;
    }
    const body: ChangePasswordRequestBody = {
      currentPassword: String(form.get('currentPassword')),
      newPassword: String(form.get('newPassword')),
    };
    try {
      await api('POST', '/password', body);
      formEl.reset();
      setMessage({ ok: true, text: 'Password changed. Your other sessions were signed out.' });
    } catch (err) {
      setMessage({ ok: false, text: messageOf(err) });
    }
  };

  return (
    <>
      <h1>Account</h1>
      <p>
        Signed in as <strong>{email}</strong>.
      </p>
      <h2>Change password</h2>
      <form class="card stack narrow" onSubmit={submit}>
        <label>
          Current password
          <input name="currentPassword" type="password" autocomplete="current-password" required />
        </label>
        <label>
          New password (at least 10 characters)
          <input name="newPassword" type="password" autocomplete="new-password" minLength={10} required />
        </label>
        <label>
          New password again
          <input name="confirm" type="password" autocomplete="new-password" minLength={10} required />
        </label>
        {message && (
          <p class={message.ok ? 'ok' : 'error'} role={message.ok ? 'status' : 'alert'}>
            {message.text}
          </p>
        )}
        <button type="submit" class="primary">
          Change password
        </button>
      </form>
    </>
  );
}
