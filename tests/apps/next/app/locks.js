'use client';
// As the README tells Next.js users: the polyfill imported once, in a client component (on
// the server it installs nothing). The tests' T (main.js, the fixture apps' page script)
// loads once the page runs in the browser.
import 'navigator-locks-polyfill/auto';
import { useEffect } from 'react';

export default function Locks() {
  useEffect(() => {
    import('../main.js');
  }, []);
  return null;
}
