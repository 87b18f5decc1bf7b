import { useEffect, useRef, useState } from 'preact/hooks';

const supported = () => typeof Notification !== 'undefined';

/** The browser's permission for notifications, and a way to ask (on a click, as browsers require). */
export function useNotificationPermission(): [NotificationPermission | 'unsupported', () => void] {
  const [permission, setPermission] = useState<NotificationPermission | 'unsupported'>(() =>
    supported() ? Notification.permission : 'unsupported',
  );
  const ask = () => {
    if (supported()) void Notification.requestPermission().then(setPermission);
  };
  return [permission, ask];
}

interface Watched {
  id: string;
  title: string;
  status: string;
}

const running = (status: string) => status === 'PENDING' || status === 'PROCESSING';

/**
 * Tells the person when a job they are watching ends (with their permission): a job seen running
 * and now finished raises one notification, which opens its page when clicked.
 */
export function useJobEndNotifications(jobs: Watched[]): void {
  const seen = useRef(new Map<string, string>());
  useEffect(() => {
    for (const job of jobs) {
      const before = seen.current.get(job.id);
      seen.current.set(job.id, job.status);
      if (!before || !running(before) || running(job.status)) continue;
      if (!supported() || Notification.permission !== 'granted') continue;
      const words = job.status === 'COMPLETED' ? 'is ready' : 'has stopped';
      try {
        const note = new Notification(`${job.title} ${words}`, { body: 'Stemforge', tag: job.id });
        note.onclick = () => {
          window.focus();
          location.assign(`/jobs/${encodeURIComponent(job.id)}`);
        };
      } catch {
        // Some browsers (Chrome on Android) allow notifications only from a service worker.
      }
    }
  }, [jobs.map((j) => `${j.id}:${j.status}`).join(',')]);
}

/** "Notify me when jobs end": shown while the browser has not been asked. */
export function NotifyButton() {
  const [permission, ask] = useNotificationPermission();
  if (permission === 'unsupported' || permission === 'denied') return null;
  if (permission === 'granted') return <span class="muted">You will be notified when jobs end.</span>;
  return (
    <button type="button" onClick={ask}>
      Notify me when jobs end
    </button>
  );
}
