// Package dbcore is the plumbing that the store (package db) and its engines (db/pilotage,
// db/transfer, …) share: transactions, the generated queries with every error translated once into
// the store's kinds, ids, and the recording of activities with the jobs they cause. It is internal to
// db/, so nothing outside the store's door can reach the database through it.
package dbcore
