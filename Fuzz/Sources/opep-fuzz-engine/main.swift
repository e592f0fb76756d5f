import FuzzDriver
import OPEPFuzzTargets

fuzz(choosingFrom: FuzzTarget.entryPoints)
