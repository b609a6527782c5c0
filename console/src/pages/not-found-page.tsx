import { Link, useLocation } from 'react-router';

/** A console address that names no page: says so, and the way back. */
export function NotFoundPage() {
  const { pathname } = useLocation();
  return (
    <section className="start">
      <h1>Nothing here</h1>
      <p>
        The console has no page at <code>/console{pathname}</code>.
      </p>
      <p>
        <Link to="/">To the console’s first page</Link>
      </p>
    </section>
  );
}
