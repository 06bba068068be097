// The benchmark floor's one-line module (tests/e2e/cold-floor.html).
export default 1;
