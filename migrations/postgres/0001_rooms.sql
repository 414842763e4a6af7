-- One row per room, written when the room ends. No IP addresses, no contents.
-- Times are unix milliseconds (created_ms) and durations in milliseconds.
CREATE TABLE rooms (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    created_ms BIGINT NOT NULL,
    waiting_ms BIGINT,
    total_ms BIGINT NOT NULL,
    result TEXT NOT NULL,
    frames_a_to_b BIGINT NOT NULL,
    bytes_a_to_b BIGINT NOT NULL,
    frames_b_to_a BIGINT NOT NULL,
    bytes_b_to_a BIGINT NOT NULL,
    resumes BIGINT NOT NULL,
    client_a TEXT,
    client_b TEXT
);

CREATE INDEX rooms_created_ms ON rooms (created_ms);
