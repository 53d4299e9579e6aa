import { afterAll } from '@jest/globals';
import { destroyClients } from '../../shared/service/aws-clients';

afterAll(() => destroyClients());
