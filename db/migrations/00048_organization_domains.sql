-- +goose Up
-- Sign-in domains of an organization (db/tenancy/domains.go): a person whose e-mail address is verified
-- (by a single sign-on provider at the first sign-in that links or creates the account, or by the
-- verification link Pilot e-mails) joins, as a member, the organization that configured the address's
-- domain. A domain belongs to one organization at most (the unique key: the join finds one owner);
-- it is stored lower case, a hostname of at least two labels. A new table: no lock on existing rows.
CREATE TABLE organization_domains (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    domain          text NOT NULL UNIQUE CHECK (length(domain) <= 253
        AND domain ~ '^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'),
    created_by      uuid REFERENCES users (id) ON DELETE SET NULL,
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX organization_domains_org_idx ON organization_domains (organization_id, created_at);

-- +goose Down
DROP TABLE organization_domains;
