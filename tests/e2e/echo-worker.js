// The benchmark's floor (scripts/bench.mjs): a SharedWorker with no lock logic. `echo`
// answers the sender; `relay` passes the message to the other port that said `join`.
const ports = [];
onconnect = ({ ports: [port] }) => {
  port.onmessage = ({ data }) => {
    if (data === 'join') ports.push(port);
    else if (data === 'echo') port.postMessage('echo');
    else ports.find((p) => p !== port).postMessage(data);
  };
};
