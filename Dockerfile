# tether in a container, for CI systems other than GitHub's:
#
#   docker build -t tether .
#   docker run --rm -v "$PWD:/work" tether check
#   docker run --rm -v "$PWD:/work" tether check --changed-since origin/main
#
# The binary is built static (musl) in the first stage; the image holds it and git
# (for --changed-since and idem's git listing), nothing else.
FROM rust:1-alpine AS build
RUN apk add --no-cache musl-dev gcc make
WORKDIR /src
# The workspace as committed (.dockerignore leaves out target/ and caches), so the
# lock file holds as it is.
COPY . .
RUN cargo build --release --locked --package helm-tether --bin tether \
    && ./target/release/tether --version

FROM alpine:3.20
RUN apk add --no-cache git \
    && git config --system --add safe.directory '*'
COPY --from=build /src/target/release/tether /usr/local/bin/tether
COPY LICENSE README.md /usr/share/doc/tether/
WORKDIR /work
ENTRYPOINT ["tether"]
CMD ["check"]
