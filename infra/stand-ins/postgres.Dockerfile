# Stand-in for postgres:15-alpine (infra/stand-ins/build.sh): Debian's postgresql-15 with an entry
# point honouring POSTGRES_USER, POSTGRES_DB, POSTGRES_PASSWORD / POSTGRES_PASSWORD_FILE and
# PGDATA as the official image does; pg_isready is on PATH for the compose healthcheck.
ARG BASE
FROM ${BASE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
 && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql \
 && chmod 0700 /var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:$PATH \
    PGDATA=/var/lib/postgresql/data
USER postgres
EXPOSE 5432
# Fast shutdown on stop, as the official image does.
STOPSIGNAL SIGINT
ENTRYPOINT ["sh", "/usr/local/bin/postgres-entrypoint.sh"]
CMD ["postgres"]
