// The benchmark's message-flow floor (scripts/bench.mjs): the polyfill's protocol round trips
// (request → granted, then a one-way release) and message shapes, served in plain JS with
// no lock manager behind them: one exclusive queue per name, no modes, options, liveness,
// recovery or checks. What no implementation of this flow can beat here.
const queues = new Map(); // name -> [{ port, id }], the holder first
onconnect = ({ ports: [port] }) => {
  const names = new Map(); // this port's request id -> name
  port.onmessage = ({ data }) => {
    if (data.type === 'request') {
      const queue = queues.get(data.name) || [];
      queues.set(data.name, queue);
      names.set(data.id, data.name);
      queue.push({ port, id: data.id });
      if (queue.length === 1) port.postMessage({ v: 4, type: 'granted', id: data.id });
    } else if (data.type === 'release') {
      const name = names.get(data.id);
      names.delete(data.id);
      const queue = queues.get(name);
      queue.shift();
      if (queue.length) queue[0].port.postMessage({ v: 4, type: 'granted', id: queue[0].id });
      else queues.delete(name);
    }
  };
};
