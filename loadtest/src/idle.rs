//! Idle connections, held by child processes of the tool ("holders", `fairdeck-relay-load hold`): each opens its
//! share of the pairs, sends one message each way in each, says so, and holds them until the tool ends it (or its
//! standard input closes: the tool is gone). So no process needs descriptors for more than its share (the tool's
//! client ends would need as many as the relays' ends together), and what bounds the count is the relays' own
//! open-file limits.

use std::io::BufRead;
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;
use fairdeck_relay_load::system::{self, Sources};
use fairdeck_relay_load::ws::{next_binary, to_all};
use futures_util::{SinkExt, StreamExt};

use crate::{CONNECT_CONCURRENCY, Kind, open_pairs};

/// Descriptors a holder keeps beside its connections (standard streams, the runtime, a margin).
const HOLDER_RESERVE: u64 = 256;

/// A holder's task, as the tool gives it.
#[derive(Debug, clap::Args)]
pub struct Hold {
    #[arg(long, value_enum)]
    kind: Kind,
    /// The relays, comma-separated, placed as `place` does.
    #[arg(long, value_delimiter = ',', required = true)]
    relays: Vec<SocketAddr>,
    /// The number of the holder's first pair (which also gives its baseline room and its source address).
    #[arg(long)]
    first: usize,
    #[arg(long)]
    pairs: usize,
}

/// Child mode: open the pairs, one message each way in each, say `HELD`, hold them until standard input closes.
pub async fn hold(task: &Hold) -> anyhow::Result<()> {
    system::raise_open_files(2 * task.pairs as u64 + HOLDER_RESERVE);
    let mut pairs = open_pairs(task.kind, &task.relays, task.first..task.first + task.pairs).await?;
    let exchanged: Vec<anyhow::Result<()>> = futures_util::stream::iter(pairs.iter_mut())
        .map(|(a, b)| async move {
            a.send(to_all(&[1; 200])).await?;
            next_binary(b).await?;
            b.send(to_all(&[2; 200])).await?;
            next_binary(a).await?;
            Ok(())
        })
        .buffer_unordered(CONNECT_CONCURRENCY)
        .collect()
        .await;
    exchanged.into_iter().collect::<anyhow::Result<()>>()?;
    println!("HELD {}", pairs.len());
    tokio::task::spawn_blocking(|| std::io::copy(&mut std::io::stdin(), &mut std::io::sink())).await??;
    Ok(())
}

/// Idle connections held by holders; dropping it ends the holders, whose connections the kernel closes (a holder
/// still opening its pairs would not read its standard input).
pub struct Held {
    holders: Vec<Child>,
    pub connections: usize,
    /// How long opening them took.
    pub opened: Duration,
}

impl Drop for Held {
    fn drop(&mut self) {
        for holder in &mut self.holders {
            let _ = holder.kill();
            let _ = holder.wait();
        }
    }
}

/// Pairs each holder takes under an open-file limit of `open_files`.
fn pairs_per_holder(open_files: u64) -> usize {
    usize::try_from(open_files.saturating_sub(HOLDER_RESERVE) / 2).unwrap_or(usize::MAX).max(1)
}

/// The holders' shares of `pairs` pairs: consecutive ranges of at most `per_holder` pairs, as (first, count).
fn shares(pairs: usize, per_holder: usize) -> Vec<(usize, usize)> {
    (0..pairs).step_by(per_holder).map(|first| (first, per_holder.min(pairs - first))).collect()
}

/// Opens `connections` idle connections (half as many pairs, placed over `relays`) in as few holders as the
/// open-file limit allows, waits until every holder has sent its messages, then lets the relays settle for a
/// second.
pub async fn open_idle(kind: Kind, relays: &[SocketAddr], connections: usize) -> anyhow::Result<Held> {
    let pairs = connections / 2;
    let per_holder = pairs_per_holder(system::raise_open_files(0));
    let relays = relays.iter().map(SocketAddr::to_string).collect::<Vec<_>>().join(",");
    let started = Instant::now();
    let mut held = Held { holders: Vec::new(), connections: 2 * pairs, opened: Duration::ZERO };
    let mut said = Vec::new();
    for (first, count) in shares(pairs, per_holder) {
        let mut holder = Command::new(std::env::current_exe()?)
            .args(["hold", "--kind", kind.arg(), "--relays", &relays])
            .args(["--first", &first.to_string(), "--pairs", &count.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .context("cannot start a holder process")?;
        let stdout = holder.stdout.take().context("holder stdout")?;
        held.holders.push(holder);
        said.push(tokio::task::spawn_blocking(move || {
            let mut line = String::new();
            std::io::BufReader::new(stdout).read_line(&mut line).map(|_| line)
        }));
    }
    for (number, said) in said.into_iter().enumerate() {
        let line = said.await??;
        anyhow::ensure!(line.starts_with("HELD "), "holder {} failed (its error is above)", number + 1);
    }
    held.opened = started.elapsed();
    tokio::time::sleep(Duration::from_secs(1)).await;
    Ok(held)
}

/// Loopback addresses `connections` idle connections come from.
pub fn source_addresses(connections: usize) -> usize {
    Sources::of_machine().addresses(connections / 2)
}

/// Holders of `connections` idle connections.
pub fn holders(connections: usize) -> usize {
    shares(connections / 2, pairs_per_holder(system::raise_open_files(0))).len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holders_share_the_pairs_under_their_open_file_limit() {
        assert_eq!(pairs_per_holder(20_000), 9_872);
        assert_eq!(pairs_per_holder(100), 1, "a holder takes at least one pair");
        assert_eq!(shares(25_000, 9_872), [(0, 9_872), (9_872, 9_872), (19_744, 5_256)]);
        assert_eq!(shares(3, 10), [(0, 3)]);
        assert!(shares(0, 10).is_empty());
    }
}
