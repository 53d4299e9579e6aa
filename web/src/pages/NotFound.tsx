import { useTitle } from '../hooks';

export function NotFoundPage() {
  useTitle('Not found');
  return (
    <>
      <h1>Page not found</h1>
      <p>
        <a href="/">Back to the dashboard</a>
      </p>
    </>
  );
}
