import Locks from '../locks.js';

export default function Other() {
  return (
    <main>
      <h1>Another page</h1>
      <Locks />
    </main>
  );
}
