package sources

func parseVikunja(data []byte) (Export, error) {
	return Export{}, unreadable("Vikunja exports are not read yet")
}

func parsePlane(data []byte) (Export, error) {
	return Export{}, unreadable("Plane exports are not read yet")
}
