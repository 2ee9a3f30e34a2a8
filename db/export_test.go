package db

import "github.com/pilot-dev/pilot/db/internal/dbsqlc"

// Translating runs statements on conn as the store's queries run them: every error they meet comes back
// translated by interpret (for the package's external tests).
func Translating(conn dbsqlc.DBTX) dbsqlc.DBTX { return translating{conn} }
