import FuzzDriver
import OPEPServerFuzzTargets

fuzz(choosingFrom: ServerFuzzTarget.everyTarget)
