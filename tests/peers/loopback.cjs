// Preloaded by `node --require` (targets/peers/server-everything-http.toml): a server that
// listens on a port alone binds the loopback interface only, not every interface.
"use strict";
const net = require("node:net");

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function listenOnLoopback(...args) {
  const portOnly = typeof args[0] === "number" || /^\d+$/.test(String(args[0]));
  if (portOnly && (args.length === 1 || typeof args[1] === "function")) {
    args.splice(1, 0, "127.0.0.1");
  }
  return listen.apply(this, args);
};
