# Stand-in for nats:2.10-alpine (infra/stand-ins/build.sh): Debian's nats-server, with wget for
# the compose healthcheck (/healthz on the monitoring port). Like the official image, the
# container's arguments are nats-server's (the compose file passes -c, -js, -sd and -m).
ARG BASE
FROM ${BASE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends nats-server wget \
 && rm -rf /var/lib/apt/lists/*
EXPOSE 4222 8222
ENTRYPOINT ["/usr/sbin/nats-server"]
CMD ["-m", "8222"]
