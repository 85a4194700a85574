package runtime

import "github.com/pwrc/pwrc/runtime/machine"

// The components of a machine without levels, for tests that name them.
const (
	compBusy     = machine.Busy
	compIdle     = machine.Idle
	compOff      = machine.Off
	compBoot     = machine.Boot
	compShutdown = machine.Shutdown
	compInfra    = machine.Shutdown + 1
	nComponents  = compInfra + 1
)

var ComponentNames = [nComponents]string{"busy", "idle", "off", "boot", "shutdown", "infrastructure"}
