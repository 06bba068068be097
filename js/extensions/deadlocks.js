// Deadlock detection on a query() snapshot, for diagnostics (the demo's inspector uses it).
//
// Wait-for graph: client A waits for client B on name N when A has a pending request for N
// and B holds N in a conflicting mode, or B requested N earlier in a conflicting mode (queues
// are FIFO and readers never barge past a queued writer). A client waiting for a name it
// holds itself waits for itself. A cycle is a deadlock when each of its holders' callbacks
// awaits its client's waiting request (as nested requests do): none of them can ever be
// granted unless one is aborted, stolen, or its context goes away. A snapshot cannot tell
// (a client is a whole context, whose other tasks may release a lock independently): a
// cycle is a possible deadlock, and one found again in a later snapshot a likely one.
//
// Scopes (requestAll, docs/extensions.md): a scope waits on every one of its names, as one
// request in each name's queue — the draft's grantable rule is exactly that per-name test for
// each of its names — so it enters the graph as one entry per name, as query() lists it.
// A request queued behind an earlier scope on a name waits for that scope's client. A scope
// holds none of its names while it waits, so clients that take the same names as one scope
// each (in whatever order they list them) never wait for each other in a cycle, as nested
// requests in opposite orders do.

const conflict = (a, b) => a === 'exclusive' || b === 'exclusive';

// Entries of query() ({ name }) or queryScopes() ({ names }), one per name.
const perName = (list) => list.flatMap((entry) => (entry.names || [entry.name]).map((name) => ({ ...entry, name })));

function waitForGraph(snapshot) {
  // (LockManagerSnapshot's members are optional in WebIDL.)
  const held = perName(snapshot.held || []);
  const pending = perName(snapshot.pending || []);
  const edges = new Map(); // client -> Map(client -> names waited on)
  const add = (from, to, name) => {
    if (!edges.has(from)) edges.set(from, new Map());
    const names = edges.get(from).get(to) || edges.get(from).set(to, []).get(to);
    if (!names.includes(name)) names.push(name);
  };
  const queues = new Map();
  for (const request of pending) {
    if (!queues.has(request.name)) queues.set(request.name, []);
    queues.get(request.name).push(request);
  }
  for (const [name, queue] of queues) {
    const holders = held.filter((lock) => lock.name === name);
    queue.forEach((request, i) => {
      for (const lock of holders) {
        if (conflict(request.mode, lock.mode)) add(request.clientId, lock.clientId, name);
      }
      for (const earlier of queue.slice(0, i)) {
        if (earlier.clientId !== request.clientId && conflict(request.mode, earlier.mode)) {
          add(request.clientId, earlier.clientId, name);
        }
      }
    });
  }
  return edges;
}

// Strongly connected components (Tarjan), recursive: as deep as the longest wait chain.
function components(edges) {
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const result = [];
  const connect = (v) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of (edges.get(v) || new Map()).keys()) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      result.push(component);
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) connect(v);
  return result;
}

// The (possible) deadlocks in `snapshot` ({held, pending} from navigator.locks.query(), or
// from queryScopes()): one entry per cycle group, `clients` (clientIds) and every wait among them
// ({client, waitsFor, name}).
export function findDeadlocks(snapshot) {
  const edges = waitForGraph(snapshot);
  const deadlocks = [];
  for (const component of components(edges)) {
    const clients = component.reverse(); // discovery order
    const members = new Set(clients);
    const waits = [];
    for (const client of clients) {
      for (const [waitsFor, names] of edges.get(client) || []) {
        if (members.has(waitsFor)) for (const name of names) waits.push({ client, waitsFor, name });
      }
    }
    if (clients.length > 1 || waits.length > 0) {
      deadlocks.push({ clients, waits });
    }
  }
  return deadlocks;
}
