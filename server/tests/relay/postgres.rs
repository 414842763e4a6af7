//! Helpers for tests that need real servers: a throwaway PostgreSQL on loopback.
//!
//! Each [`TestPostgres`] runs `initdb` into its own temporary directory and starts `postgres` on a free loopback
//! port, so tests stay independent and can run in parallel; dropping it stops the server and removes the
//! directory. As root, the PostgreSQL binaries (which refuse to run as root) run as the `postgres` user.

use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use thiserror::Error;

/// Why a test PostgreSQL could not start.
#[derive(Debug, Error)]
pub enum TestPostgresError {
    #[error("no PostgreSQL binaries found (set PG_BIN, or run scripts/ensure-test-tools.sh)")]
    NoBinaries,
    #[error("cannot prepare the data directory")]
    Io(#[from] std::io::Error),
    #[error("`{command}` failed: {output}")]
    Command { command: String, output: String },
}

/// A PostgreSQL server for one test. Stopped and deleted on drop.
#[derive(Debug)]
pub struct TestPostgres {
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
    as_postgres_user: bool,
}

impl TestPostgres {
    /// Initializes and starts a fresh cluster; blocks until it accepts connections.
    pub fn start() -> Result<TestPostgres, TestPostgresError> {
        let bin = find_binaries().ok_or(TestPostgresError::NoBinaries)?;
        // SAFETY: geteuid has no preconditions and cannot fail.
        let as_postgres_user = unsafe { libc::geteuid() } == 0;
        let dir = tempfile::Builder::new().prefix("fairdeck-pg-").tempdir()?;
        if as_postgres_user {
            run(Command::new("chown").arg("postgres:").arg(dir.path()))?;
        }
        let data = dir.path().join("data");
        let mut server = TestPostgres { dir, bin, port: 0, as_postgres_user };
        server.pg("initdb", |c| {
            c.arg("-D").arg(&data).args(["-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"])
        })?;
        // The port is free when probed; if another process takes it first, starting fails and we retry.
        let mut last_error = None;
        for _ in 0..5 {
            server.port = free_port()?;
            match server.pg_start() {
                Ok(()) => return Ok(server),
                Err(error) => last_error = Some(error),
            }
        }
        Err(last_error.unwrap_or(TestPostgresError::NoBinaries))
    }

    /// Stops the server, keeping its data and its port: a database outage.
    pub fn stop(&self) -> Result<(), TestPostgresError> {
        let data = self.dir.path().join("data");
        self.pg("pg_ctl", |c| c.arg("-D").arg(&data).args(["-m", "fast", "-w", "stop"]))
    }

    /// Starts a stopped server again, on the same port.
    pub fn restart(&self) -> Result<(), TestPostgresError> {
        self.pg_start()
    }

    fn pg_start(&self) -> Result<(), TestPostgresError> {
        let data = self.dir.path().join("data");
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off \
             -c full_page_writes=off -c max_connections=40",
            self.port,
            self.dir.path().display()
        );
        let log = self.dir.path().join("log");
        self.pg("pg_ctl", |c| c.arg("-D").arg(&data).arg("-l").arg(&log).args(["-w", "-o", &options, "start"]))
    }

    /// The connection URL of the `postgres` database.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    fn pg(&self, program: &str, args: impl FnOnce(&mut Command) -> &mut Command) -> Result<(), TestPostgresError> {
        let binary = self.bin.join(program);
        let mut command = if self.as_postgres_user {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(&binary);
            command
        } else {
            Command::new(&binary)
        };
        command.current_dir(self.dir.path());
        run(args(&mut command))
    }
}

impl Drop for TestPostgres {
    fn drop(&mut self) {
        let data = self.dir.path().join("data");
        let _ = self.pg("pg_ctl", |c| c.arg("-D").arg(&data).args(["-m", "immediate", "-w", "stop"]));
    }
}

fn run(command: &mut Command) -> Result<(), TestPostgresError> {
    let describe =
        |c: &Command| format!("{} {:?}", c.get_program().to_string_lossy(), c.get_args().collect::<Vec<_>>());
    let Output { status, stdout, stderr } = command.output().map_err(TestPostgresError::Io)?;
    if status.success() {
        return Ok(());
    }
    let output = format!("{status}: {}{}", String::from_utf8_lossy(&stdout), String::from_utf8_lossy(&stderr));
    Err(TestPostgresError::Command { command: describe(command), output })
}

fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?.local_addr()?.port())
}

/// `PG_BIN`, else the newest `/usr/lib/postgresql/<version>/bin`, else a directory on `PATH` holding `initdb`.
fn find_binaries() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("PG_BIN") {
        return Some(PathBuf::from(dir));
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Some(bin);
    }
    std::env::split_paths(&std::env::var_os("PATH")?).find(|dir| Path::new(dir).join("initdb").exists())
}
