# Debian's redis-server, reachable from other containers as the official image is.
ARG BASE
FROM ${BASE}
RUN apt-get update -qq && apt-get install -y -qq redis-server >/dev/null && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data && chown redis:redis /data
COPY redis-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
WORKDIR /data
VOLUME /data
EXPOSE 6379
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
CMD ["redis-server"]
