# Redis from Debian's archive on the local Debian image, used as the official redis image is in
# docker-compose.yml: `redis-server <config>` with the data in /data, run as the redis user.
# Built by infra/local-base-image.sh (Debian bookworm has Redis 7.0).
ARG DEBIAN_IMAGE=gleaner-local/debian:bookworm
FROM ${DEBIAN_IMAGE}
RUN apt-get update \
    && apt-get install -y --no-install-recommends redis-server \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /data /usr/local/etc/redis \
    && chown redis:redis /data
WORKDIR /data
USER redis
EXPOSE 6379
CMD ["redis-server", "--protected-mode", "no"]
