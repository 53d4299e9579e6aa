/**
 * Jest's node environment, with the test files' global object an ordinary one, and V8's code cache of the modules
 * its worker compiled for earlier test files (./compile-cache.ts).
 *
 * jest-environment-node makes each test file's context from a Proxy (`vm.createContext(proxy)`), so that it can
 * delete what a file left on the global at teardown. Node answers every global lookup in such a context through
 * interceptors: `Math`, `JSON`, `Buffer`, `Object` and the rest cost a C++ call each time, and V8 caches none of
 * them. Code the tests run in their own process (the AWS SDK, the corpus parsers, the key filter's hashes) ran
 * up to 80 times slower in a hot loop (`Math.imul` over 40,000 keys: 3.5 s against 45 ms). A context made with
 * `vm.constants.DONT_CONTEXTIFY` has an ordinary global that V8 optimises as it does the main one
 * (docs/testing.md "What makes the suite cheaper to run"). Each test file still gets a new context of its own,
 * so nothing a file sets on its global reaches another; only the deletion at teardown, a memory measure, has
 * nothing to track.
 */
import vm from 'node:vm';
import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment';
import NodeEnvironment from 'jest-environment-node';
import { installCompileCache } from './compile-cache';

installCompileCache();

export default class NodeEnvironmentWithPlainGlobal extends NodeEnvironment {
  constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
    // The base constructor makes its context with vm.createContext(its proxy): it gets a plain global instead.
    const createContext = vm.createContext;
    vm.createContext = () => createContext(vm.constants.DONT_CONTEXTIFY);
    try {
      super(config, context);
    } finally {
      vm.createContext = createContext;
    }
  }
}
