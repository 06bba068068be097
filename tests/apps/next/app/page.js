import Locks from './locks.js';

export default function Page() {
  return (
    <main>
      <h1>A Next.js app</h1>
      <Locks />
    </main>
  );
}
