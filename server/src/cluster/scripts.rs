//! What the instances of a cluster keep in Redis, and the scripts that change it. Each script runs atomically in
//! Redis, so that two instances never both claim a nameplate, a rendezvous or a dead instance's room.
//!
//! Keys, all under [`PREFIX`]:
//! - `instance:<instance>`: the instance's advertised URL, under a lease that it renews; gone with the instance.
//! - `instances`: the set of instances that took a lease, for each to find the others (a member whose lease is
//!   gone is removed by the next instance that reads it); it expires unless an instance renews it.
//! - `secret`: what instances present to each other on a forwarded connection.
//! - `owner:<room>`: the instance holding the room; `room:<room>`: its snapshot (JSON, see `RoomEntry`).
//! - `nameplate:<n>`, `token:<sha256 hex>`, `rendezvous:<id hex>`: the room (its id) a player's first message
//!   names (a watch nameplate is a `nameplate:` key too: one set of numbers for both). Every key of a room expires unless its instance renews it, so nothing outlives a dead instance by more
//!   than the time its players have to come back.
//! - `nameplate-holes`: the nameplates given back (a sorted set), and `nameplate-next`: the last one handed out
//!   new. A claim takes the smallest one given back, else the next new one: a few commands however many rooms
//!   the cluster has, where looking for the smallest free number would read every taken one.

use redis::Script;

/// The prefix of every key.
pub(super) const PREFIX: &str = "fairdeck:";

/// What a player's first message names, and where the cluster finds its room.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lookup {
    Nameplate(u32),
    /// The SHA-256 of a seat token.
    Token([u8; 32]),
    /// A rendezvous room's id.
    Rendezvous([u8; 32]),
}

impl Lookup {
    pub(super) fn key(self) -> String {
        format!("{PREFIX}{}", self.name())
    }

    /// The lookup without the prefix: `nameplate:<n>`, `token:<sha256 hex>` or `rendezvous:<id hex>`.
    pub(crate) fn name(self) -> String {
        match self {
            Lookup::Nameplate(nameplate) => format!("nameplate:{nameplate}"),
            Lookup::Token(hash) => format!("token:{}", hex::encode(hash)),
            Lookup::Rendezvous(id) => format!("rendezvous:{}", hex::encode(id)),
        }
    }

    /// Reads what [`Lookup::name`] wrote; `None` for anything else.
    pub(crate) fn from_name(name: &str) -> Option<Lookup> {
        let hash = |hex: &str| hex::decode(hex).ok()?.try_into().ok();
        match name.split_once(':')? {
            ("nameplate", number) if !number.starts_with('+') => Some(Lookup::Nameplate(number.parse().ok()?)),
            ("token", hex) => Some(Lookup::Token(hash(hex)?)),
            ("rendezvous", hex) => Some(Lookup::Rendezvous(hash(hex)?)),
            _ => None,
        }
    }
}

pub(super) fn instance_key(instance: &str) -> String {
    format!("{PREFIX}instance:{instance}")
}

pub(super) const SECRET_KEY: &str = "fairdeck:secret";
pub(super) const INSTANCES_KEY: &str = "fairdeck:instances";

/// KEYS[1] a lookup key, KEYS[2] the asking instance's lease. Returns `{lease}` (no room), `{lease, room}` (no
/// owner), `{lease, room, owner}` (its lease is gone) or `{lease, room, owner, url}`, where `lease` is 1 if the
/// asking instance's lease is there (0: Redis lost it, or the instance was cut off for longer than it lasts).
pub(super) fn locate() -> Script {
    Script::new(
        r"
local lease = tostring(redis.call('EXISTS', KEYS[2]))
local room = redis.call('GET', KEYS[1])
if not room then return {lease} end
local owner = redis.call('GET', ARGV[1] .. 'owner:' .. room)
if not owner then return {lease, room} end
local url = redis.call('GET', ARGV[1] .. 'instance:' .. owner)
if not url then return {lease, room, owner} end
return {lease, room, owner, url}
",
    )
}

/// ARGV: prefix, room, preferred nameplate (0: none), ttl ms, owner, highest nameplate. Claims the preferred
/// nameplate if free (or already the room's), else the smallest one given back that is free, else the next new
/// one (after the highest, from 1 again: each number is tried once at most), and makes `owner` the room's owner.
/// Returns the nameplate, 0 if none is free.
pub(super) fn claim_nameplate() -> Script {
    Script::new(
        r"
local function try(n)
  local key = ARGV[1] .. 'nameplate:' .. n
  if redis.call('GET', key) == ARGV[2] then return redis.call('PEXPIRE', key, ARGV[4]) == 1 end
  return redis.call('SET', key, ARGV[2], 'NX', 'PX', ARGV[4])
end
local holes = ARGV[1] .. 'nameplate-holes'
local highest = tonumber(ARGV[6])
local claimed = 0
local preferred = tonumber(ARGV[3])
if preferred > 0 and try(preferred) then
  claimed = preferred
  redis.call('ZREM', holes, preferred)
end
while claimed == 0 do
  local hole = redis.call('ZPOPMIN', holes)
  if #hole == 0 then break end
  local n = tonumber(hole[1])
  if n and n >= 1 and n <= highest and try(n) then claimed = n end
end
local tried = 0
while claimed == 0 and tried < highest do
  local n = redis.call('INCR', ARGV[1] .. 'nameplate-next')
  if n > highest then
    n = 1
    redis.call('SET', ARGV[1] .. 'nameplate-next', 1)
  end
  if try(n) then claimed = n end
  tried = tried + 1
end
if claimed > 0 then redis.call('SET', ARGV[1] .. 'owner:' .. ARGV[2], ARGV[5], 'PX', ARGV[4]) end
return claimed
",
    )
}

/// Lua that gives a nameplate back, for `publish` and `forget` when they remove a `nameplate:` key (`key`), so
/// that the next claim hands it out again. Prefix in ARGV[1].
const GIVE_BACK: &str = r"
local function give_back(key)
  local plates = ARGV[1] .. 'nameplate:'
  if string.sub(key, 1, #plates) == plates then
    local n = string.sub(key, #plates + 1)
    if tonumber(n) then redis.call('ZADD', ARGV[1] .. 'nameplate-holes', tonumber(n), n) end
  end
end
";

/// KEYS[1] a rendezvous key; ARGV: prefix, room, ttl ms, owner. 1 if the rendezvous is now the room's (and
/// `owner` holds it), 0 if another room has it.
pub(super) fn claim_rendezvous() -> Script {
    Script::new(
        r"
if redis.call('SET', KEYS[1], ARGV[2], 'NX', 'PX', ARGV[3]) then
  redis.call('SET', ARGV[1] .. 'owner:' .. ARGV[2], ARGV[4], 'PX', ARGV[3])
  return 1
end
return 0
",
    )
}

/// ARGV: prefix, room, the owner found (empty: none), the adopting instance, ttl ms, 1 if the owner is known to be
/// dead. Takes the room over if its owner is still the one found and has no lease (or is dead, its lease then
/// removed); returns its snapshot, or nil.
pub(super) fn adopt() -> Script {
    Script::new(
        r"
local owner_key = ARGV[1] .. 'owner:' .. ARGV[2]
local owner = redis.call('GET', owner_key)
if (owner or '') ~= ARGV[3] then return false end
local lease = ARGV[1] .. 'instance:' .. (owner or '')
if owner and ARGV[6] ~= '1' and redis.call('EXISTS', lease) == 1 then return false end
local room = redis.call('GET', ARGV[1] .. 'room:' .. ARGV[2])
if not room then return false end
if owner then redis.call('DEL', lease) end
redis.call('SET', owner_key, ARGV[4], 'PX', ARGV[5])
return room
",
    )
}

/// KEYS: the room's lookup keys, then the ones it no longer has; ARGV: prefix, room, owner, ttl ms, snapshot,
/// how many of KEYS are wanted, owner's URL, lease ms. Renews the owner's lease (an instance publishing is alive:
/// its rooms must not look orphaned meanwhile) and publishes the room if `owner` holds it (or nobody with a lease
/// does): 1, or 2 if the lease had lapsed (Redis lost it: everything is to be published again); 0 if another
/// instance took the room over. A lookup key held by another live room is left alone.
pub(super) fn publish() -> Script {
    Script::new(&format!(
        r"{GIVE_BACK}
local lease = redis.call('SET', ARGV[1] .. 'instance:' .. ARGV[3], ARGV[7], 'PX', ARGV[8], 'GET')
local owner_key = ARGV[1] .. 'owner:' .. ARGV[2]
local owner = redis.call('GET', owner_key)
if owner and owner ~= ARGV[3] and redis.call('EXISTS', ARGV[1] .. 'instance:' .. owner) == 1 then return 0 end
redis.call('SET', owner_key, ARGV[3], 'PX', ARGV[4])
redis.call('SET', ARGV[1] .. 'room:' .. ARGV[2], ARGV[5], 'PX', ARGV[4])
local wanted = tonumber(ARGV[6])
for i, key in ipairs(KEYS) do
  local held = redis.call('GET', key)
  if i <= wanted then
    -- Another room's key is taken over only from a room that is gone: this instance's own (a room holds its
    -- rendezvous here alone), or one whose instance has no lease.
    local stale = false
    if held and held ~= ARGV[2] then
      local holder = redis.call('GET', ARGV[1] .. 'owner:' .. held)
      stale = not holder or holder == ARGV[3] or redis.call('EXISTS', ARGV[1] .. 'instance:' .. holder) == 0
    end
    if not held or held == ARGV[2] or stale then redis.call('SET', key, ARGV[2], 'PX', ARGV[4]) end
  elseif held == ARGV[2] then
    redis.call('DEL', key)
    give_back(key)
  end
end
if lease then return 1 end
return 2
",
    ))
}

/// KEYS: the room's lookup keys; ARGV: prefix, room, owner. Removes an ended room's keys (those still its own).
pub(super) fn forget() -> Script {
    Script::new(&format!(
        r"{GIVE_BACK}
for _, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[2] then
    redis.call('DEL', key)
    give_back(key)
  end
end
local owner_key = ARGV[1] .. 'owner:' .. ARGV[2]
if redis.call('GET', owner_key) == ARGV[3] then
  redis.call('DEL', owner_key, ARGV[1] .. 'room:' .. ARGV[2])
end
return 1
",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lookup_reads_back_from_its_name_and_nothing_else_reads() {
        for lookup in
            [Lookup::Nameplate(0), Lookup::Nameplate(999_999), Lookup::Token([7; 32]), Lookup::Rendezvous([9; 32])]
        {
            assert_eq!(Lookup::from_name(&lookup.name()), Some(lookup));
            assert_eq!(lookup.key(), format!("{PREFIX}{}", lookup.name()));
        }
        let short = format!("token:{}", "ab".repeat(31));
        for name in [
            "",
            "nameplate",
            "nameplate:",
            "nameplate:+7",
            "nameplate:-7",
            "nameplate:99999999999",
            "token:zz",
            &short,
            "room:1",
        ] {
            assert_eq!(Lookup::from_name(name), None, "{name}");
        }
    }
}
