package wg

// NetworkChanged runs what the device does after the host's addresses or
// routes changed.
func (d *Device) NetworkChanged() { d.networkChanged() }
