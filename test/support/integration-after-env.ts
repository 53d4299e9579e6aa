import { afterAll } from '@jest/globals';
import { destroyClients } from '../../shared/aws-clients';

afterAll(() => destroyClients());
